/**
 * Storm events of every site (or one), newest first, each with its facts (gauge, times, total, whether
 * it reached the threshold, its inspection) and its chart: the rain of the storm against the site's
 * threshold, the storm shaded, the crossing marked (GET /api/charts over the storm and a little around).
 */

import { formatLong } from '../../../../shared/src/time.ts';
import { describeError, get, getAll } from '../../api.js';
import { type ChartHandle, mountChart } from '../../charts/plot.js';
import { clock, day } from '../../charts/words.js';
import { deviceOf, siteById, siteZone } from '../../state.js';
import { badge, byId, h, replace } from '../../ui/dom.js';
import { relativeDue } from '../../ui/format.js';
import { fillSiteFilter } from '../../ui/site-filter.js';

export type Storm = import('../../../../shared/src/api.ts').StormDto;

const HOUR = 3_600_000;
/** Charts drawn at once; the rest as they scroll into view. */
const EAGER = 6;

const INSPECTION: Record<string, [string, string]> = {
  'not-required': ['No inspection needed', 'muted'],
  pending: ['Inspection pending', 'warn'],
  'on-time': ['Inspected on time', 'ok'],
  late: ['Inspected late', 'bad'],
  missing: ['Inspection missing', 'bad'],
};

/** Every site the person may see, "All sites" first and chosen unless a site was. */
export function initStormSites() {
  fillSiteFilter(byId('s-site') as HTMLSelectElement);
}

export function stormSite() {
  return (byId('s-site') as HTMLSelectElement).value;
}

/** Whether the page shows the storms of a site now (every site's, or that one's). */
export function showsStormsOf(siteId: string) {
  const chosen = stormSite();
  return chosen === '' || chosen === siteId;
}

let handles: ChartHandle[] = [];
let observer: IntersectionObserver | undefined;
let loadSeq = 0;

export async function loadStorms() {
  const siteId = stormSite();
  const out = byId('storms-status');
  const seq = ++loadSeq;
  try {
    const storms = await getAll('GET /api/storms', { query: { siteId } });
    if (seq !== loadSeq) return;
    storms.sort((a, b) => Date.parse(b.start) - Date.parse(a.start) || a.siteId.localeCompare(b.siteId));
    const sites = new Set(storms.map((s) => s.siteId)).size;
    out.textContent = storms.length
      ? `${storms.length} storm event${storms.length === 1 ? '' : 's'}${siteId ? '' : ` at ${sites} site${sites === 1 ? '' : 's'}`}, newest first`
      : '';
    out.classList.remove('text-bad');
    renderStorms(storms, siteId);
  } catch (e) {
    if (seq !== loadSeq) return;
    out.textContent = describeError(e);
    out.classList.add('text-bad');
  }
}

/** "Dec 1, 2026, 9:52 PM EST", as the reports write a time. */
const at = (iso: string, tz: string) => h('time', { datetime: iso }, formatLong(Date.parse(iso), tz));

/** From the start to the end: the end's date only when it is another day. */
function span(from: string, to: string, tz: string) {
  const a = Date.parse(from);
  const b = Date.parse(to);
  const end = day(a, tz) === day(b, tz) ? clock(b, tz) : formatLong(b, tz);
  return [at(from, tz), ' to ', h('time', { datetime: to }, end)];
}

function fact(label: string, ...content: Array<Node | string | null | Array<Node | string>>) {
  return h('div', { class: 'storm-fact' }, h('dt', null, label), h('dd', null, ...content));
}

function stormCard(s: Storm, now: number): { card: HTMLElement; slot: HTMLElement } {
  const tz = siteZone(s.siteId);
  const site = siteById(s.siteId);
  const gauge = deviceOf(s.siteId, s.deviceId);
  const [words, kind] = INSPECTION[s.inspection.status] ?? [s.inspection.status, 'muted'];
  const slot = h('div', { class: 'storm-chart' }, h('p', { class: 'muted small' }, 'Loading the chart…'));
  const late = s.inspection.status === 'missing' || s.inspection.status === 'late';
  const card = h(
    'article',
    { class: `card storm-card${late ? ' card-overdue' : ''}`, 'data-storm': s.id, 'data-site': s.siteId },
    h(
      'header',
      { class: 'card-head' },
      h(
        'h3',
        null,
        site?.name ?? s.siteId,
        h('span', { class: 'muted small' }, ` · rain gauge ${gauge?.name ?? s.deviceId}`),
      ),
      h(
        'div',
        { class: 'counts' },
        s.qualified ? badge('reached the threshold', 'warn') : badge('below the threshold', 'muted'),
        badge(words, kind),
        s.closed ? null : badge('still raining or within the dry period', 'info'),
      ),
    ),
    h(
      'dl',
      { class: 'storm-facts' },
      fact('Rain', span(s.start, s.end, tz)),
      fact(
        'Total',
        `${s.inches.toFixed(2)}\u00a0in`,
        h('span', { class: 'small muted' }, ` (${s.tips} tips)`),
      ),
      s.thresholdAt ? fact('Threshold crossed', at(s.thresholdAt, tz)) : null,
      s.dueAt
        ? fact(
            'Inspection due',
            at(s.dueAt, tz),
            s.inspection.status === 'pending' || s.inspection.status === 'missing'
              ? h('span', { class: 'small' }, ` (${relativeDue(s.dueAt, now)})`)
              : null,
          )
        : null,
      s.inspection.inspectedAt ? fact('Inspected', at(s.inspection.inspectedAt, tz)) : null,
      s.inspectedDuring?.length
        ? fact(
            'Inspected during the storm',
            ...s.inspectedDuring.map((i, k) => [k ? '; ' : '', at(i.inspectedAt, tz)]),
            h(
              'span',
              { class: 'small muted' },
              ' (made while it still rained, so it does not count: the inspection after the rain ends is still due)',
            ),
          )
        : null,
    ),
    slot,
  );
  return { card, slot };
}

/** The storm's chart: its rain from two hours before it to two hours after (or now). */
async function drawStorm(s: Storm, slot: HTMLElement) {
  const now = Date.now();
  const from = Date.parse(s.start) - 2 * HOUR;
  const to = Math.min(now, Math.max(Date.parse(s.end) + 2 * HOUR, from + 6 * HOUR));
  try {
    const a = await get('GET /api/charts', {
      query: {
        siteId: s.siteId,
        deviceId: s.deviceId,
        from: new Date(from).toISOString(),
        to: new Date(to).toISOString(),
      },
    });
    const panel = a.panels.find((p) => p.id === `${s.deviceId}/rain`);
    if (!panel) {
      replace(slot, h('p', { class: 'muted small' }, 'No rain chart for this gauge.'));
      return;
    }
    handles.push(mountChart(slot, panel, { timezone: a.timezone, height: 190 }));
  } catch (e) {
    replace(slot, h('p', { class: 'text-bad small' }, `Chart unavailable: ${describeError(e)}`));
  }
}

function renderStorms(storms: Storm[], siteId: string) {
  for (const c of handles) c.destroy();
  handles = [];
  observer?.disconnect();
  const list = byId('storms-list');
  if (!storms.length) {
    const name = siteId ? (siteById(siteId)?.name ?? siteId) : '';
    replace(
      list,
      h(
        'p',
        { class: 'muted empty' },
        name ? `No storm events recorded at ${name}.` : 'No storm events recorded.',
      ),
    );
    return;
  }
  const now = Date.now();
  const cards = storms.map((s) => ({ storm: s, ...stormCard(s, now) }));
  replace(
    list,
    cards.map((c) => c.card),
  );
  const pending = new Map<Element, (typeof cards)[number]>();
  observer = new IntersectionObserver(
    (entries) => {
      for (const e of entries) {
        const c = pending.get(e.target);
        if (!e.isIntersecting || !c) continue;
        pending.delete(e.target);
        observer?.unobserve(e.target);
        void drawStorm(c.storm, c.slot);
      }
    },
    { rootMargin: '400px 0px' },
  );
  cards.forEach((c, i) => {
    if (i < EAGER) void drawStorm(c.storm, c.slot);
    else {
      pending.set(c.card, c);
      observer?.observe(c.card);
    }
  });
}
