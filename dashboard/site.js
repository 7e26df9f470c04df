/** One site: its devices with their latest readings, a chart of the last days, its duties and its reports. */
import { openAlert } from './alerts.js';
import { describeError, get, url } from './api.js';
import { barChart, findGaps, lineChart } from './chart.js';
import { badge, byId, h, replace, SITE_KINDS } from './dom.js';
import { formatTime, formatValue, isSilent, relativePast, silentMinutes, tipsPerBucket } from './format.js';
import { dutyItem, sortDuties } from './overview.js';
import { state } from './state.js';

/** @typedef {import('./state.js').Site} Site */
/** @typedef {import('./state.js').Device} Device */

const HOUR = 3_600_000;

/** The reading each kind of device is charted by, in order of preference. */
/** @type {Record<string, string[]>} */
const CHART_FIELDS = {
  'rain-gauge': ['rainTips', 'rainIn'],
  'sediment-trap': ['sedimentIn', 'levelIn'],
  turbidity: ['turbidityNtu'],
  'septic-panel': ['levelIn', 'sludgeIn'],
  'septic-tank': ['levelIn', 'sludgeIn'],
  'holding-tank': ['levelIn'],
};

/** @type {string | undefined} */
export let currentSiteId;

/** @param {Device} d */
function silentMs(d) {
  return silentMinutes(d.kind) * 60_000;
}

function rangeDays() {
  return Number(/** @type {HTMLSelectElement} */ (byId('site-range')).value) || 3;
}

/**
 * @param {Site} site
 * @param {Device} d
 * @param {number} from
 * @param {number} to
 * @param {Map<string, number>} inchesPerTip
 */
async function deviceChart(site, d, from, to, inchesPerTip) {
  const candidates = CHART_FIELDS[d.kind] ?? [];
  const latest = Object.keys(d.latest ?? {});
  const field = candidates.find((f) => latest.includes(f)) ?? candidates[0];
  if (!field) return null;
  /** @type {{points: Array<{ts: string, value: number}>, bucketMs: number | null}} */
  const series = await get('/api/telemetry', {
    siteId: site.id,
    deviceId: d.id,
    field,
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    maxPoints: 2000,
  });
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
    let buckets;
    let unit;
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

/** @param {Array<[number, number]>} gaps */
function legend(gaps) {
  return gaps.length
    ? h(
        'span',
        { class: 'legend' },
        h('span', { class: 'swatch', 'aria-hidden': 'true' }),
        'shaded: no data (no evidence)',
      )
    : null;
}

/**
 * @param {Site} site
 * @param {Device} d
 * @param {number} now
 */
function deviceHead(site, d, now) {
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

/**
 * @param {Site} site
 * @param {Device} d
 */
function latestTable(site, d) {
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
          h('td', { class: 'num' }, formatValue(k.replace(/^alarms\./, ''), v.value)),
          h('td', null, h('time', { datetime: v.ts }, formatTime(v.ts, site.timezone))),
        ),
      ),
    ),
  );
}

/** @type {number} */
let loadSeq = 0;

/** @param {string} siteId */
export async function loadSite(siteId) {
  currentSiteId = siteId;
  const seq = ++loadSeq;
  const out = byId('site-status');
  try {
    /** @type {Site} */
    const site = await get(`/api/sites/${encodeURIComponent(siteId)}`);
    const to = Date.now();
    const from = to - rangeDays() * 86_400_000;
    /** @type {Array<{deviceId: string, tips: number, inches: number}>} */
    const storms = site.devices.some((d) => d.kind === 'rain-gauge')
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

/**
 * @param {Site} site
 * @param {Array<HTMLElement | null>} charts
 * @param {number} now
 */
function renderSite(site, charts, now) {
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
