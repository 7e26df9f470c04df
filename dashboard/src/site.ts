/** One site: its devices with their latest readings, a chart of the last days, its duties and its reports. */
import { openAlert } from './alerts.js';
import { describeError, get, url } from './api.js';
import { barChart, findGaps, lineChart } from './chart.js';
import { badge, byId, h, replace, SITE_KINDS } from './dom.js';
import { formatTime, formatValue, isSilent, relativePast, silentMinutes, tipsPerBucket } from './format.js';
import { dutyItem, sortDuties } from './overview.js';
import { state } from './state.js';

export type Site = import('./state.js').Site;
export type Device = import('./state.js').Device;

const HOUR = 3_600_000;

/** The reading each kind of device is charted by, in order of preference. */

const CHART_FIELDS: Record<string, string[]> = {
  'rain-gauge': ['rainTips', 'rainIn'],
  'sediment-trap': ['sedimentIn', 'levelIn'],
  turbidity: ['turbidityNtu'],
  'septic-panel': ['levelIn', 'sludgeIn'],
  'septic-tank': ['levelIn', 'sludgeIn'],
  'holding-tank': ['levelIn'],
};

export let currentSiteId: string | undefined;

function silentMs(d: Device) {
  return silentMinutes(d.kind) * 60_000;
}

function rangeDays() {
  return Number((byId('site-range') as HTMLSelectElement).value) || 3;
}

async function deviceChart(
  site: Site,
  d: Device,
  from: number,
  to: number,
  inchesPerTip: Map<string, number>,
) {
  const candidates = CHART_FIELDS[d.kind] ?? [];
  const latest = Object.keys(d.latest ?? {});
  const field = candidates.find((f) => latest.includes(f)) ?? candidates[0];
  if (!field) return null;
  const series: { points: Array<{ ts: string; value: number }>; bucketMs: number | null } = await get(
    '/api/telemetry',
    {
      siteId: site.id,
      deviceId: d.id,
      field,
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      maxPoints: 2000,
    },
  );
  const times = series.points.map((p) => Date.parse(p.ts));
  const gapMs = Math.max(silentMs(d), 2 * (series.bucketMs ?? 0));
  const gaps = findGaps(times, from, to, gapMs);
  const days = Math.round((to - from) / 86_400_000);
  if (!series.points.length)
    return h(
      'p',
      { class: 'muted chart-empty' },
      `No ${field} readings in the last ${days} days: a gap in the evidence.`,
    );
  if (field === 'rainTips' || field === 'rainIn') {
    const bucketMs = days > 3 ? 3 * HOUR : HOUR;
    const ipt = inchesPerTip.get(d.id);
    let buckets: Array<{ start: number; value: number }>;
    let unit: string;
    if (field === 'rainTips') {
      const tips = tipsPerBucket(series.points, from, to, bucketMs);
      buckets = tips.map((b) => ({ start: b.start, value: ipt ? b.tips * ipt : b.tips }));
      unit = ipt ? 'in' : 'tips';
    } else {
      const n = Math.ceil((to - from) / bucketMs);
      buckets = Array.from({ length: n }, (_, i) => ({ start: from + i * bucketMs, value: 0 }));
      for (const p of series.points) {
        const b = buckets[Math.min(n - 1, Math.floor((Date.parse(p.ts) - from) / bucketMs))];
        if (b) b.value += p.value;
      }
      unit = 'in';
    }
    const total = buckets.reduce((s, b) => s + b.value, 0);
    const label = `Rain at ${d.id} per ${bucketMs / HOUR} h, last ${days} days: total ${total.toFixed(unit === 'in' ? 2 : 0)} ${unit}${gaps.length ? `, ${gaps.length} gap${gaps.length === 1 ? '' : 's'} without data` : ''}`;
    return h(
      'figure',
      { class: 'chart-fig' },
      barChart({ buckets, bucketMs, from, to, tz: site.timezone, label, unit, gaps }),
      h('figcaption', { class: 'small' }, label, legend(gaps)),
    );
  }
  const points = series.points.map((p) => ({ t: Date.parse(p.ts), value: p.value }));
  const last = points[points.length - 1];
  const unit = field === 'turbidityNtu' ? 'NTU' : 'in';
  const label = `${field} at ${d.id}, last ${days} days${last ? `: now ${formatValue(field, last.value)}` : ''}${gaps.length ? `, ${gaps.length} gap${gaps.length === 1 ? '' : 's'} without data` : ''}`;
  return h(
    'figure',
    { class: 'chart-fig' },
    lineChart({ points, from, to, tz: site.timezone, label, unit, gaps, gapMs }),
    h('figcaption', { class: 'small' }, label, legend(gaps)),
  );
}

function legend(gaps: Array<[number, number]>) {
  return gaps.length
    ? h(
        'span',
        { class: 'legend' },
        h('span', { class: 'swatch', 'aria-hidden': 'true' }),
        'shaded: no data (no evidence)',
      )
    : null;
}

function deviceHead(site: Site, d: Device, now: number) {
  const last = d.lastReadingAt ?? d.lastReceivedAt;
  const gap = isSilent(d, now);
  return h(
    'header',
    { class: 'card-head' },
    h('h3', null, d.id, h('span', { class: 'muted small' }, ` ${d.kind}${d.role ? ` (${d.role})` : ''}`)),
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
    h('caption', { class: 'sr-only' }, `Latest readings of ${d.id}`),
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
          h('th', { scope: 'row' }, k),
          h('td', { class: 'num' }, formatValue(k.replace(/^alarms\./, ''), v.value as number | boolean)),
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
    const site: Site = await get(`/api/sites/${encodeURIComponent(siteId)}`);
    const to = Date.now();
    const from = to - rangeDays() * 86_400_000;
    const storms: Array<{ deviceId: string; tips: number; inches: number }> = site.devices.some(
      (d) => d.kind === 'rain-gauge',
    )
      ? await get('/api/storms', { siteId }).catch(() => [])
      : [];
    const inchesPerTip = new Map();
    for (const s of storms) if (s.tips > 0) inchesPerTip.set(s.deviceId, s.inches / s.tips);
    const charts = await Promise.all(
      site.devices.map((d) =>
        deviceChart(site, d, from, to, inchesPerTip).catch((e) =>
          h('p', { class: 'text-bad' }, `Chart unavailable: ${describeError(e)}`),
        ),
      ),
    );
    if (seq !== loadSeq) return;
    renderSite(site, charts, to);
    out.textContent = '';
    out.classList.remove('text-bad');
  } catch (e) {
    if (seq !== loadSeq) return;
    out.textContent = describeError(e);
    out.classList.add('text-bad');
  }
}

function renderSite(site: Site, charts: Array<HTMLElement | null>, now: number) {
  replace(byId('site-title'), site.name);
  const period = {
    siteId: site.id,
    from: new Date(now - 30 * 86_400_000).toISOString(),
    to: new Date(now).toISOString(),
  };
  replace(
    byId('site-meta'),
    `${SITE_KINDS[site.kind] ?? site.kind} · ${site.id} · times in ${site.timezone}`,
  );
  replace(
    byId('site-reports'),
    'Compliance report, last 30 days: ',
    h(
      'a',
      {
        href: url('/api/reports/compliance', { ...period, format: 'html' }),
        target: '_blank',
        rel: 'noopener',
      },
      'HTML',
    ),
    ' · ',
    h('a', { href: url('/api/reports/compliance', { ...period, format: 'csv' }), download: '' }, 'CSV'),
    ' · ',
    h(
      'a',
      {
        href: url('/api/reports/compliance', { ...period, format: 'json' }),
        download: `compliance-${site.id}.json`,
        title: 'The report with its evidence: check it with npm run verify',
      },
      'JSON (verifiable)',
    ),
    ' · ',
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
  replace(
    byId('site-devices'),
    site.devices.map((d, i) =>
      h(
        'article',
        { class: 'card device-card', 'data-device': d.id },
        deviceHead(site, d, now),
        latestTable(site, d),
        charts[i] ?? null,
      ),
    ),
  );
}
