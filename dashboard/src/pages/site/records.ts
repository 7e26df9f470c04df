/**
 * The "Records" part of a construction site's page (town law 001), loaded with that page only: where the
 * records stand (milestones and their notices, the final stabilization, the one-year inspection:
 * `record-standing.ts`), the developer's records on file (each contractor's certification, the SWPPP kept
 * on site, expected milestones, the final acceptance and the one-year inspection, the final stabilization
 * and its confirmation), and the forms the site's side and the officer fill (`record-forms.ts`). Drawn
 * once per site and person; again after a record.
 */

import type { SiteRecordDto } from '../../../../shared/src/api/siteRecords.ts';
import { SITE_RECORD_LABELS } from '../../../../shared/src/api/siteRecordWords.ts';
import { describeError, get } from '../../api.js';
import { session } from '../../session.js';
import type { Site } from '../../state.js';
import { byId, h, replace } from '../../ui/dom.js';
import { formatTime } from '../../ui/format.js';
import { recordForms } from './record-forms.js';
import { standingPart } from './record-standing.js';

function list(site: Site, records: SiteRecordDto[]): HTMLElement {
  if (records.length === 0) return h('p', { class: 'muted' }, 'No records on file yet.');
  return h(
    'ul',
    { class: 'records' },
    records.map((r) =>
      h(
        'li',
        { 'data-record': r.kind },
        h('strong', null, SITE_RECORD_LABELS[r.kind]),
        ` — ${formatTime(r.at, site.timezone)}: ${r.summary}`,
        h('br'),
        h(
          'small',
          { class: 'muted' },
          `recorded ${formatTime(r.recordedAt, site.timezone)} by ${r.recordedBy}`,
        ),
      ),
    ),
  );
}

let lastWords = '';

/** Draws the part for a construction site (nothing for another kind). */
export function renderRecords(site: Site, reload: () => Promise<void>) {
  const box = byId('site-records');
  const key = `${site.id}|${session.me?.name ?? ''}|${session.me?.role ?? ''}`;
  if (site.kind !== 'construction') {
    box.dataset.for = '';
    replace(box);
    return;
  }
  if (box.dataset.for === key) return;
  box.dataset.for = key;
  void draw(box, site, key, reload);
}

async function draw(box: HTMLElement, site: Site, key: string, reload: () => Promise<void>) {
  const failed = (e: unknown) => describeError(e);
  const [records, standing] = await Promise.all([
    get('GET /api/sites/:id/records', { params: { id: site.id } }).catch(failed),
    get('GET /api/sites/:id/records/standing', { params: { id: site.id } }).catch(failed),
  ]);
  if (box.dataset.for !== key) return;
  const words = lastWords;
  lastWords = '';
  const done = (w: string) => {
    lastWords = w;
    box.dataset.for = '';
    void reload();
  };
  const now = Date.now();
  replace(
    box,
    h('h3', { id: 'records-h' }, 'Records'),
    h(
      'p',
      { id: 'records-result', class: words ? 'msg msg-ok' : 'msg', role: 'status', 'aria-live': 'polite' },
      words,
    ),
    standingPart(site, standing, now),
    h('h4', null, 'On file'),
    typeof records === 'string' ? h('p', { class: 'msg msg-bad' }, records) : list(site, records),
    ...recordForms(site, now, typeof standing === 'string' ? null : standing, done),
  );
}
