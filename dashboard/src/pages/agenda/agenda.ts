/**
 * The officer's agenda (GET /api/agenda): the overdue duties first, then day by day the milestone
 * inspections the applicants notified and the duties due, each time in its site's zone.
 */
import type { Agenda, AgendaItem } from '../../../../shared/src/api/agenda.ts';
import { formatClock, formatDay } from '../../../../shared/src/time.ts';
import { describeError, get } from '../../api.js';
import { badge, byId, h, replace } from '../../ui/dom.js';
import { formatTime } from '../../ui/format.js';

const siteLink = (i: AgendaItem) => h('a', { href: `#/site/${encodeURIComponent(i.siteId)}` }, i.siteName);

function item(i: AgendaItem, withDate: boolean) {
  const at = Date.parse(i.at);
  return h(
    'li',
    { class: `agenda-item agenda-${i.kind}${i.overdue ? ' row-overdue' : ''}`, 'data-ref': i.ref },
    h(
      'time',
      { datetime: i.at, class: 'agenda-time' },
      withDate ? formatTime(at, i.timezone) : formatClock(at, i.timezone),
    ),
    ' ',
    i.kind === 'milestone'
      ? badge('Milestone', 'info')
      : i.overdue
        ? badge('Overdue', 'bad')
        : badge('Due', 'warn'),
    ' ',
    h('strong', null, i.label),
    ' · ',
    siteLink(i),
    h('p', { class: 'small muted' }, i.detail),
  );
}

let loadSeq = 0;

export async function loadAgenda() {
  const out = byId('agenda-status');
  const seq = ++loadSeq;
  try {
    const agenda = await get('GET /api/agenda');
    if (seq !== loadSeq) return;
    out.textContent = `${formatDay(agenda.from)} to ${formatDay(agenda.to)}`;
    out.classList.remove('text-bad');
    renderAgenda(agenda);
  } catch (e) {
    if (seq !== loadSeq) return;
    out.textContent = describeError(e);
    out.classList.add('text-bad');
  }
}

function renderAgenda(a: Agenda) {
  replace(
    byId('agenda-list'),
    a.overdue.length
      ? h(
          'section',
          { class: 'card agenda-day agenda-overdue' },
          h('h3', null, 'Overdue'),
          h(
            'ul',
            { class: 'agenda-items' },
            a.overdue.map((i) => item(i, true)),
          ),
        )
      : null,
    a.days.map((d) =>
      h(
        'section',
        { class: 'card agenda-day', 'data-day': d.day },
        h('h3', null, formatDay(d.day)),
        d.items.length
          ? h(
              'ul',
              { class: 'agenda-items' },
              d.items.map((i) => item(i, false)),
            )
          : h('p', { class: 'muted small' }, 'Nothing due.'),
      ),
    ),
  );
}
