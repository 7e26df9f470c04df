/**
 * The "Inspections" part of a site's page, loaded with that page: the site's inspections, newest first, a
 * page at a time (GET /api/inspections), filtered by kind and by whose they are (the developer's or the
 * town's); each opens its own page (`#/inspections/<id>`).
 */

import type { InspectionDto } from '../../../../shared/src/api/alerts.ts';
import {
  INSPECTION_KINDS,
  INSPECTION_SIDE_LABELS,
  INSPECTION_SIDES,
} from '../../../../shared/src/api/inspectionWords.ts';
import { describeError, getPage } from '../../api.js';
import type { Site } from '../../state.js';
import { byId, cell, h, replace } from '../../ui/dom.js';
import { formatTime } from '../../ui/format.js';
import {
  coverageSentence,
  inspectionHref,
  inspectionKindWords,
  inspectionSideWords,
} from '../../ui/inspection-record.js';
import { MoreList } from '../../ui/more.js';

type Kind = (typeof INSPECTION_KINDS)[number];
type Side = (typeof INSPECTION_SIDES)[number];

/** The site drawn, and how its list is read again (the filters kept) when the page is drawn again. */
let drawn: { siteId: string; reload: () => Promise<void> } | undefined;

/** Draws the part for the site; for the same site again, reads its list again with the filters chosen. */
export function renderInspections(site: Site) {
  const box = byId('site-inspections');
  if (drawn?.siteId === site.id && box.childElementCount > 0) {
    void drawn.reload();
    return;
  }
  const kind = h(
    'select',
    { id: 'insp-kind' },
    h('option', { value: '' }, 'Every kind'),
    INSPECTION_KINDS.map((k) => h('option', { value: k }, inspectionKindWords(k))),
  ) as HTMLSelectElement;
  const side = h(
    'select',
    { id: 'insp-side' },
    h('option', { value: '' }, "The developer's and the town's"),
    INSPECTION_SIDES.map((s) => h('option', { value: s }, INSPECTION_SIDE_LABELS[s])),
  ) as HTMLSelectElement;
  const status = h('p', { id: 'insp-status', class: 'small', 'aria-live': 'polite' });
  const body = h('tbody');
  const list: MoreList<'GET /api/inspections', InspectionDto> = new MoreList({
    noun: 'inspections',
    key: (i) => i.id,
    route: 'GET /api/inspections',
    items: (b) => b,
    shown: () => show(),
    failed: (e) => {
      status.textContent = describeError(e);
      status.className = 'small text-bad';
    },
  });
  const show = () => {
    replace(
      body,
      list.rows.map((i) => row(site, i)),
    );
    table.hidden = list.rows.length === 0;
    status.className = 'small';
    status.textContent =
      list.rows.length === 0
        ? kind.value || side.value
          ? 'No inspection of this kind on record.'
          : 'No inspection on record yet.'
        : list.older;
  };
  const table = h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'stack', id: 'insp-table' },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['When', 'Kind', 'Whose', 'Inspector', 'Covered', 'Findings'].map((t) =>
            h('th', { scope: 'col' }, t),
          ),
        ),
      ),
      body,
    ),
  );
  let seq = 0;
  const load = async () => {
    const mine = ++seq;
    status.textContent = 'Reading the inspections…';
    try {
      const { items, next } = await getPage('GET /api/inspections', {
        query: {
          siteId: site.id,
          ...(kind.value ? { kind: kind.value as Kind } : {}),
          ...(side.value ? { side: side.value as Side } : {}),
        },
      });
      if (mine !== seq) return;
      list.start(items, next);
      show();
    } catch (e) {
      if (mine !== seq) return;
      status.textContent = describeError(e);
      status.className = 'small text-bad';
    }
  };
  drawn = { siteId: site.id, reload: load };
  kind.addEventListener('change', () => void load());
  side.addEventListener('change', () => void load());
  replace(
    box,
    h('h3', { id: 'insp-h' }, 'Inspections'),
    h('div', { class: 'row filters' }, h('label', null, 'Kind ', kind), h('label', null, 'Whose ', side)),
    status,
    table,
    list.button,
  );
  void load();
}

/** "2 in order, 1 needing maintenance, 1 violation, 3 photos". */
function findingsWords(i: InspectionDto): string {
  const f = i.findings ?? [];
  if (f.length === 0) return i.notes ? 'Notes only' : 'None recorded';
  const n = (s: string) => f.filter((x) => x.status === s).length;
  const photos = f.reduce((a, x) => a + x.photos.length, 0);
  return [
    n('ok') ? `${n('ok')} in order` : '',
    n('maintenance') ? `${n('maintenance')} needing maintenance` : '',
    n('violation') ? `${n('violation')} violation${n('violation') === 1 ? '' : 's'}` : '',
    photos ? `${photos} photo${photos === 1 ? '' : 's'}` : '',
  ]
    .filter(Boolean)
    .join(', ');
}

function row(site: Site, i: InspectionDto): HTMLElement {
  return h(
    'tr',
    { 'data-inspection': i.id },
    cell('When', h('a', { href: inspectionHref(i.id) }, formatTime(i.at, site.timezone))),
    cell('Kind', inspectionKindWords(i.kind)),
    cell('Whose', inspectionSideWords(i)),
    cell('Inspector', i.inspector),
    cell('Covered', coverageSentence(i) || '—'),
    cell('Findings', findingsWords(i)),
  );
}
