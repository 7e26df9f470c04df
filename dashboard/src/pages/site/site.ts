/**
 * One site: its devices with their latest readings and their charts over the range picked (a day to a
 * year, GET /api/charts), its duties and its reports. The charts show the law as the gateway gives it:
 * thresholds, storms, alarm episodes, gaps in the evidence (charts/).
 */

import { CHART_RANGES, type ChartRange } from '../../../../shared/src/api/chartRanges.ts';
import type { ChartPanel, ChartsAnswer } from '../../../../shared/src/api/charts.ts';
import { DEVICE_KIND_LABELS, formatMeasure, measureLabel } from '../../../../shared/src/api/measures.ts';
import type { DeviceKind } from '../../../../shared/src/telemetry.ts';
import { describeError, get } from '../../api.js';
import { type ChartHandle, mountChart } from '../../charts/plot.js';
import { openAlert } from '../../ui/alert-dialog.js';
import { badge, byId, h, replace, SITE_KINDS } from '../../ui/dom.js';

const enforcement = () => import('./enforcement.js');
/** The developer's records part loads with the site page, as the enforcement part does. */
const records = () => import('./records.js');
/** The site's inspections, as a part loaded with the page. */
const inspections = () => import('./inspections.js');
/** A construction site's practices (an administrator's editor), as a part loaded with the page. */
const practices = () => import('./practices.js');
/** How each device connects, and how a LoRaWAN, Modbus RTU or SDI-12 one is heard, as a part of its own. */
const deviceLink = () => import('./device-link.js');

import { session } from '../../session.js';
import { state } from '../../state.js';
import { dutyItem, sortDuties } from '../../ui/duties.js';
import { formatTime, isSilent, relativePast } from '../../ui/format.js';
import { milestoneForm } from './milestones.js';
import { reportPicker } from './reports.js';

export type Site = import('../../state.js').Site;
export type Device = import('../../state.js').Device;

const ROLES: Record<string, string> = { background: 'upstream background', outlet: 'outlet' };

export let currentSiteId: string | undefined;

/** The range picked (#site-range), a week unless another is. */
function chartRange(): ChartRange {
  const v = (byId('site-range') as HTMLSelectElement).value;
  return (CHART_RANGES as readonly string[]).includes(v) ? (v as ChartRange) : 'week';
}

/** How long a site's charts are kept before live readings fetch them again: longer for longer ranges. */
const KEEP_MS: Record<ChartRange, number> = {
  day: 10_000,
  week: 30_000,
  month: 120_000,
  quarter: 120_000,
  year: 300_000,
};
let kept: { key: string; at: number; answer: ChartsAnswer } | undefined;

async function chartsOf(siteId: string, range: ChartRange): Promise<ChartsAnswer> {
  const key = `${siteId}|${range}`;
  if (kept?.key === key && Date.now() - kept.at < KEEP_MS[range]) return kept.answer;
  const answer = await get('GET /api/charts', { query: { siteId, range } });
  kept = { key, at: Date.now(), answer };
  return answer;
}

/**
 * The charts on the page now, by panel, and the answer they were drawn from. Drawn again from the same
 * answer (a live reading refreshed the page), they are kept as they are, zoom and all; from a new answer,
 * a zoomed chart keeps its zoom.
 */
let drawn: {
  answer: ChartsAnswer | undefined;
  charts: Map<string, { holder: HTMLElement; chart: ChartHandle }>;
} = {
  answer: undefined,
  charts: new Map(),
};

/** The time range a chart is zoomed to, if it is. */
function zoomOf(c: ChartHandle): { min: number; max: number } | undefined {
  const x = c.plot.scales.x;
  const [first] = c.plot.data;
  if (!x || x.min === undefined || x.max === undefined || !first?.length) return undefined;
  const whole = first[first.length - 1]! - first[0]!;
  return x.max - x.min < whole * 0.98 ? { min: x.min, max: x.max } : undefined;
}

/** The device's charts into its slot: those already drawn from this answer, else new ones. */
function drawCharts(
  devices: ReadonlyArray<Pick<Device, 'id'>>,
  slots: readonly HTMLElement[],
  charts: ChartsAnswer | string,
) {
  const before = drawn;
  const same = typeof charts !== 'string' && before.answer === charts;
  // A zoom is kept across a refresh of the same site and range, not into another.
  const alike =
    typeof charts !== 'string' &&
    before.answer?.siteId === charts.siteId &&
    before.answer.range === charts.range;
  const next = new Map<string, { holder: HTMLElement; chart: ChartHandle }>();
  devices.forEach((d, i) => {
    const slot = slots[i]!;
    if (typeof charts === 'string') {
      slot.appendChild(h('p', { class: 'text-bad' }, `Charts unavailable: ${charts}`));
      return;
    }
    for (const p of charts.panels.filter((x: ChartPanel) => x.deviceId === d.id)) {
      const old = before.charts.get(p.id);
      if (same && old) {
        slot.appendChild(old.holder);
        next.set(p.id, old);
        before.charts.delete(p.id);
        continue;
      }
      const holder = h('div', { class: 'chart-holder' });
      slot.appendChild(holder);
      const chart = mountChart(holder, p, { timezone: charts.timezone });
      const zoom = old && alike ? zoomOf(old.chart) : undefined;
      if (zoom) chart.plot.setScale('x', zoom);
      next.set(p.id, { holder, chart });
    }
  });
  for (const c of before.charts.values()) c.chart.destroy();
  drawn = { answer: typeof charts === 'string' ? undefined : charts, charts: next };
}

function kindWords(d: Device): string {
  const kind = DEVICE_KIND_LABELS[d.kind as DeviceKind] ?? d.kind;
  return d.role ? `${kind}, ${ROLES[d.role] ?? d.role}` : kind;
}

function deviceHead(site: Site, d: Device, now: number) {
  const last = d.lastReadingAt ?? d.lastReceivedAt;
  const gap = isSilent(d, now);
  return h(
    'header',
    { class: 'card-head' },
    h('h3', null, d.name ?? d.id, h('span', { class: 'muted small' }, ` ${kindWords(d)}`)),
    h(
      'div',
      { class: 'counts' },
      badge(d.status, d.status === 'online' ? 'ok' : d.status === 'offline' ? 'bad' : 'muted'),
      gap ? badge(last ? 'silent: no evidence' : 'no data yet', 'gap') : null,
    ),
    h(
      'p',
      { class: 'small muted full' },
      last
        ? `Last reading ${formatTime(last, site.timezone)} (${relativePast(last, now)})`
        : 'Never reported.',
      d.statusAt ? ` · status since ${formatTime(d.statusAt, site.timezone)}` : '',
    ),
  );
}

function latestTable(site: Site, d: Device) {
  const entries = Object.entries(d.latest ?? {});
  if (!entries.length) return h('p', { class: 'muted' }, 'No readings yet.');
  return h(
    'table',
    { class: 'latest' },
    h('caption', { class: 'sr-only' }, `Latest readings of ${d.name ?? d.id}`),
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        h('th', { scope: 'col' }, 'Reading'),
        h('th', { scope: 'col' }, 'Value'),
        h('th', { scope: 'col' }, 'At'),
      ),
    ),
    h(
      'tbody',
      null,
      entries.map(([k, v]) =>
        h(
          'tr',
          { class: v.value === true ? 'row-overdue' : '', 'data-field': k },
          h('th', { scope: 'row' }, measureLabel(k, d.kind)),
          h(
            'td',
            { class: 'num' },
            typeof v.value === 'number' || typeof v.value === 'boolean' ? formatMeasure(k, v.value) : '',
          ),
          h('td', null, h('time', { datetime: v.ts }, formatTime(v.ts, site.timezone))),
        ),
      ),
    ),
  );
}

let loadSeq: number = 0;

export async function loadSite(siteId: string) {
  currentSiteId = siteId;
  const seq = ++loadSeq;
  const out = byId('site-status');
  try {
    const site = await get('GET /api/sites/:id', { params: { id: siteId } });
    const charts = await chartsOf(siteId, chartRange()).catch((e: unknown) => describeError(e));
    if (seq !== loadSeq) return;
    renderSite(site, charts, Date.now());
    out.textContent = '';
    out.classList.remove('text-bad');
  } catch (e) {
    if (seq !== loadSeq) return;
    out.textContent = describeError(e);
    out.classList.add('text-bad');
  }
}

function renderSite(site: Site, charts: ChartsAnswer | string, now: number) {
  replace(byId('site-title'), site.name);
  replace(
    byId('site-meta'),
    `${SITE_KINDS[site.kind] ?? site.kind} · ${site.id} · times in ${site.timezone}`,
  );
  // The report picker is drawn once per site: a live refresh keeps the period the person chose.
  const reports = byId('site-reports');
  if (reports.dataset.site !== site.id) {
    reports.dataset.site = site.id;
    replace(reports, reportPicker(site.id, site.timezone, now));
  }
  // Likewise the milestone form, drawn again for another site or another person signed in.
  const milestone = byId('site-milestone');
  const who = `${site.id}|${session.me?.name ?? ''}`;
  if (milestone.dataset.for !== who) {
    milestone.dataset.for = who;
    replace(milestone, milestoneForm(site, now));
  }
  replace(
    byId('site-links'),
    h('a', { href: `#/storms/${encodeURIComponent(site.id)}` }, 'Storms'),
    ' · ',
    h('a', { href: `#/inspect/${encodeURIComponent(site.id)}` }, 'Record an inspection'),
  );
  const duties = sortDuties(
    [...state.active.values()].filter((a) => a.siteId === site.id),
    now,
  );
  replace(
    byId('site-duties'),
    duties.length
      ? h(
          'ul',
          { class: 'duties' },
          duties.map((a) => dutyItem(a, site.timezone, now, (id) => void openAlert(id))),
        )
      : h('p', { class: 'muted' }, 'No open duties.'),
  );
  // A device retired within the chart's period: its charts up to then, under its id and "Retired".
  const inService = new Set(site.devices.map((d) => d.id));
  const retired =
    typeof charts === 'string'
      ? []
      : [...new Set(charts.panels.map((p) => p.deviceId))].filter((id) => !inService.has(id));
  const shown = [...site.devices, ...retired.map((id) => ({ id }))];
  const slots = shown.map(() => h('div', { class: 'device-charts' }));
  const links = site.devices.map((d) => h('div', { class: 'device-connects', 'data-link': d.id }));
  replace(byId('site-devices'), [
    ...site.devices.map((d, i) =>
      h(
        'article',
        { class: 'card device-card', 'data-device': d.id },
        deviceHead(site, d, now),
        latestTable(site, d),
        links[i]!,
        slots[i]!,
      ),
    ),
    ...retired.map((id, i) =>
      h(
        'article',
        { class: 'card device-card', 'data-device': id },
        h(
          'header',
          { class: 'card-head' },
          h('h3', null, id, h('span', { class: 'muted small' }, ' Retired: charted up to then')),
        ),
        slots[site.devices.length + i]!,
      ),
    ),
  ]);
  drawCharts(shown, slots, charts);
  void deviceLink().then((m) =>
    site.devices.forEach((d, i) => void m.renderLink(links[i]!, site.id, d, site.timezone)),
  );
  void enforcement().then((m) => m.renderEnforcement(site, () => loadSite(site.id)));
  void records().then((m) => m.renderRecords(site, () => loadSite(site.id)));
  void inspections().then((m) => m.renderInspections(site));
  void practices().then((m) => m.renderPractices(site, () => loadSite(site.id)));
}
