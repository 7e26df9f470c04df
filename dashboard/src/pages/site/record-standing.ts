/**
 * Where a construction site's records stand (GET /api/sites/{id}/records/standing), on its page: the
 * expected milestones with their notices (a milestone passed with no 48-hour notice is flagged), the
 * one-year inspection after the final acceptance with its due date, and the final stabilization with the
 * town's confirmation. Times in the site's zone.
 */
import type { SiteRecordStanding } from '../../../../shared/src/api/siteRecords.ts';
import type { Site } from '../../state.js';
import { badge, cell, h } from '../../ui/dom.js';
import { formatTime } from '../../ui/format.js';

type Row = SiteRecordStanding['milestones'][number];

function noticeCell(m: Row, tz: string) {
  if (m.notice)
    return cell(
      'Notice',
      m.notice.late ? badge('Notice late', 'warn') : badge('Notice on time', 'ok'),
      ` filed ${formatTime(m.notice.filedAt, tz)}`,
    );
  if (m.flagged) return cell('Notice', badge('Passed with no notice', 'bad'));
  return cell('Notice', badge('Not filed yet', 'muted'));
}

function milestones(site: Site, rows: SiteRecordStanding['milestones']): HTMLElement {
  const tz = site.timezone;
  if (rows.length === 0)
    return h('p', { class: 'muted', id: 'milestones-none' }, 'No expected milestones on file yet.');
  const sorted = [...rows].sort((a, b) => a.expectedAt.localeCompare(b.expectedAt));
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'stack', id: 'milestones-table' },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          h('th', null, 'Milestone'),
          h('th', null, 'Expected'),
          h('th', null, 'Notice due by'),
          h('th', null, 'Notice'),
        ),
      ),
      h(
        'tbody',
        null,
        sorted.map((m) =>
          h(
            'tr',
            {
              class: m.flagged ? 'row-overdue' : '',
              'data-milestone': m.milestone,
              'data-flagged': String(m.flagged),
            },
            cell('Milestone', m.label),
            cell('Expected', formatTime(m.expectedAt, tz)),
            cell('Notice due by', formatTime(m.noticeBy, tz)),
            noticeCell(m, tz),
          ),
        ),
      ),
    ),
  );
}

function oneYear(site: Site, y: SiteRecordStanding['oneYear'], now: number): HTMLElement | null {
  if (!y) return null;
  const tz = site.timezone;
  const head = `Final acceptance on ${formatTime(y.acceptedAt, tz)}. `;
  if (y.inspection)
    return h(
      'p',
      { id: 'one-year-standing' },
      head,
      `The one-year inspection was made on ${formatTime(y.inspection.inspectedAt, tz)}: the facilities were `,
      y.inspection.acceptable ? badge('found acceptable', 'ok') : badge('not found acceptable', 'bad'),
    );
  const overdue = Date.parse(y.dueAt) < now;
  return h(
    'p',
    { id: 'one-year-standing' },
    head,
    `The one-year inspection is due by ${formatTime(y.dueAt, tz)}. `,
    overdue ? badge('Overdue', 'bad') : badge('Not made yet', 'info'),
  );
}

function stabilization(site: Site, s: SiteRecordStanding['stabilization']): HTMLElement {
  const tz = site.timezone;
  if (!s)
    return h(
      'p',
      { id: 'stabilization-standing', class: 'muted' },
      'Final stabilization: not recorded yet. The SWPPP stays on site until then.',
    );
  return h(
    'p',
    { id: 'stabilization-standing' },
    `Finally stabilized on ${formatTime(s.stabilizedAt, tz)} (recorded by ${s.recordedBy}): ${s.description.replace(/\.$/, '')}. The SWPPP no longer has to be kept on site. `,
    s.confirmation
      ? badge(
          `Confirmed by ${s.confirmation.confirmedBy} on ${formatTime(s.confirmation.confirmedAt, tz)}`,
          'ok',
        )
      : badge('Not yet confirmed by the town', 'muted'),
  );
}

/** The standing, or the words saying why it could not be read. */
export function standingPart(site: Site, standing: SiteRecordStanding | string, now: number): HTMLElement {
  if (typeof standing === 'string') return h('p', { class: 'msg msg-bad' }, standing);
  return h(
    'div',
    { class: 'record-standing' },
    h('h4', null, 'Milestones and their 48-hour notices'),
    milestones(site, standing.milestones),
    h('h4', null, 'Completion'),
    stabilization(site, standing.stabilization),
    oneYear(site, standing.oneYear, now) ??
      h('p', { id: 'one-year-standing', class: 'muted' }, 'Final acceptance: not recorded yet.'),
  );
}
