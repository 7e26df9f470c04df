/** Storm events of a site: totals, whether each qualified, its inspection deadline and status. */

import { cell } from './alerts.js';
import { describeError, get } from './api.js';
import { badge, byId, h, replace } from './dom.js';
import { formatTime, relativeDue } from './format.js';
import { siteZone, state } from './state.js';

export type Storm = import('../../shared/src/api.ts').StormDto;

const INSPECTION_KIND: Record<string, string> = {
  'not-required': 'muted',
  pending: 'warn',
  'on-time': 'ok',
  late: 'bad',
  missing: 'bad',
};

export function initStormSites() {
  const sel = byId('s-site') as HTMLSelectElement;
  const keep = sel.value;
  replace(
    sel,
    state.sites.map((s) => h('option', { value: s.id }, s.name)),
  );
  const first = state.sites.find((s) => s.kind === 'construction') ?? state.sites[0];
  sel.value = keep || first?.id || '';
}

export function stormSite() {
  return (byId('s-site') as HTMLSelectElement).value;
}

export async function loadStorms() {
  const siteId = stormSite();
  const out = byId('storms-status');
  if (!siteId) return;
  try {
    const storms: Storm[] = await get('/api/storms', { siteId });
    storms.sort((a, b) => Date.parse(b.start) - Date.parse(a.start));
    out.textContent = `${storms.length} storm event${storms.length === 1 ? '' : 's'}`;
    out.classList.remove('text-bad');
    renderStorms(storms, siteZone(siteId));
  } catch (e) {
    out.textContent = describeError(e);
    out.classList.add('text-bad');
  }
}

function renderStorms(storms: Storm[], tz: string) {
  const now = Date.now();
  replace(
    byId('storms-body'),
    storms.length
      ? storms.map((s) =>
          h(
            'tr',
            {
              'data-storm': s.id,
              class: s.inspection.status === 'missing' || s.inspection.status === 'late' ? 'row-overdue' : '',
            },
            cell('Gauge', s.deviceId),
            cell('Start', h('time', { datetime: s.start }, formatTime(s.start, tz))),
            cell(
              'End',
              h('time', { datetime: s.end }, formatTime(s.end, tz)),
              s.closed ? null : [' ', badge('still raining or within the dry period', 'info')],
            ),
            cell(
              'Total',
              `${s.inches.toFixed(2)}\u00a0in`,
              h('div', { class: 'small muted' }, `${s.tips} tips`),
            ),
            cell('Qualified', s.qualified ? badge('≥ threshold', 'warn') : 'no'),
            cell(
              'Inspection due',
              s.dueAt
                ? [
                    h('time', { datetime: s.dueAt }, formatTime(s.dueAt, tz)),
                    s.inspection.status === 'pending' || s.inspection.status === 'missing'
                      ? h('div', { class: 'small' }, relativeDue(s.dueAt, now))
                      : null,
                  ]
                : '—',
            ),
            cell(
              'Inspection',
              badge(s.inspection.status, INSPECTION_KIND[s.inspection.status] ?? 'muted'),
              s.inspection.inspectedAt
                ? h('div', { class: 'small' }, formatTime(s.inspection.inspectedAt, tz))
                : null,
            ),
          ),
        )
      : h('tr', null, h('td', { colspan: 7, class: 'muted' }, 'No storm events recorded at this site.')),
  );
}
