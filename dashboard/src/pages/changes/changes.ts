/**
 * The Changes page: change records as sentences (`shared/src/changeWords.ts`, in the zone of each
 * change's site, or the gateway's), the record as stored behind a fold, with its evidence log entry.
 */
import type { ChangeResponse } from '../../../../shared/src/admin.ts';
import { type ChangeNames, changeSentence } from '../../../../shared/src/changeWords.ts';
import { addDays, zonedMidnight } from '../../../../shared/src/time.ts';
import { getPage } from '../../api.js';

/** The change records the page shows at once, the newest. */
const CHANGES_PAGE = 500;

import { deviceOf, homeZone, siteById, siteZone } from '../../state.js';
import { byId, h } from '../../ui/dom.js';
import { fill, table } from '../../ui/form.js';
import { fillSiteFilter } from '../../ui/site-filter.js';

export type Change = ChangeResponse;

/** What the sentences know of sites, devices and zones: the dashboard's state. */
const NAMES: ChangeNames = {
  siteName: (id) => siteById(id)?.name,
  deviceName: (siteId, deviceId) => deviceOf(siteId, deviceId)?.name,
  siteZone,
  get homeZone() {
    return homeZone();
  },
};

/** The record as stored, folded away. */
function stored(c: Change) {
  const raw = JSON.stringify({ old: c.old ?? null, new: c.new ?? null }, null, 2);
  return h(
    'details',
    { class: 'recorded' },
    h('summary', { class: 'small' }, 'The record as stored'),
    h('pre', { class: 'small wrap' }, raw),
  );
}

export function initChangeFilters() {
  const sel = byId('c-site') as HTMLSelectElement;
  fillSiteFilter(sel);
  const zoneLabel = () => {
    const tz = sel.value ? siteZone(sel.value) : homeZone();
    byId('c-from-label').textContent = `From (day, ${tz})`;
    byId('c-to-label').textContent = `To (day, ${tz})`;
  };
  if (!sel.dataset.bound) {
    sel.dataset.bound = '1';
    sel.addEventListener('change', zoneLabel);
  }
  zoneLabel();
}

/** A day (YYYY-MM-DD) in a zone: its first instant, or its last. */
function dayBound(day: string, tz: string, end: boolean) {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (!end) return new Date(zonedMidnight(y, mo, d, tz)).toISOString();
  const next = addDays(y, mo, d, 1);
  return new Date(zonedMidnight(next.year, next.month, next.day, tz) - 1).toISOString();
}

export async function loadChanges() {
  const v = (id: string) => (byId(id) as HTMLInputElement).value;
  const siteId = v('c-site') || undefined;
  const tz = siteId ? siteZone(siteId) : homeZone();
  await fill(byId('changes-list'), async () => {
    const page = await getPage('GET /api/changes', {
      query: {
        siteId,
        from: dayBound(v('c-from'), tz, false),
        to: dayBound(v('c-to'), tz, true),
        limit: CHANGES_PAGE,
      },
    });
    const rows = page.items;
    // Newest first, in the order of the evidence log.
    rows.sort((a, b) => b.logIndex - a.logIndex);
    const n = `${rows.length} change record${rows.length === 1 ? '' : 's'}`;
    byId('changes-status').textContent = page.next
      ? `The newest ${n}; older ones are not shown: choose dates to see them.`
      : `${n}, newest first`;
    return table(
      ['Change', 'Log entry'],
      rows.map((c) => {
        const { text, diffs } = changeSentence(c, NAMES);
        return [
          [
            h('p', { class: 'change-text' }, text),
            diffs.length
              ? h(
                  'ul',
                  { class: 'change-diffs' },
                  diffs.map((d) => h('li', null, d)),
                )
              : null,
            stored(c),
          ],
          h('span', { title: `leaf hash ${c.leafHash}` }, `#${c.logIndex}`),
        ];
      }),
      (i) => ({ 'data-change': String(rows[i]?.id ?? i) }),
    );
  });
}
