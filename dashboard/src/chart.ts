/** Small inline SVG charts: rain as bars per bucket, a level as a line; gaps in the data are shaded. */
import { formatTime } from './format.js';

const NS = 'http://www.w3.org/2000/svg';
const W = 480;
const H = 170;
const PAD = { l: 40, r: 8, t: 14, b: 24 };

function s(tag: string, attrs: Record<string, string | number> = {}, text?: string) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

function niceMax(v: number) {
  if (!(v > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (v <= m * p) return m * p;
  return 10 * p;
}

const tickLabel = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(2));

/**
 * Periods with no reading for longer than `gapMs` (including before the first and after the last).
 * @param times sorted epoch ms
 */
export function findGaps(times: number[], from: number, to: number, gapMs: number) {
  const gaps: Array<[number, number]> = [];
  let prev = from;
  for (const t of times) {
    if (t - prev >= gapMs) gaps.push([prev, t]);
    prev = Math.max(prev, t);
  }
  if (to - prev >= gapMs) gaps.push([prev, to]);
  return gaps;
}

function frame(o: {
  from: number;
  to: number;
  yMax: number;
  tz: string;
  label: string;
  unit: string;
  gaps: Array<[number, number]>;
}) {
  const svg = s('svg', {
    viewBox: `0 0 ${W} ${H}`,
    class: 'chart',
    role: 'img',
    'aria-label': o.label,
    preserveAspectRatio: 'xMidYMid meet',
  });
  svg.appendChild(s('title', {}, o.label));
  const x = (t: number) => PAD.l + ((t - o.from) / (o.to - o.from || 1)) * (W - PAD.l - PAD.r);
  const y = (v: number) => H - PAD.b - (v / o.yMax) * (H - PAD.t - PAD.b);
  for (const [a, b] of o.gaps) {
    const g = s('rect', {
      x: x(a),
      y: PAD.t,
      width: Math.max(1, x(b) - x(a)),
      height: H - PAD.t - PAD.b,
      class: 'chart-gap',
    });
    g.appendChild(s('title', {}, `No data ${formatTime(a, o.tz)} to ${formatTime(b, o.tz)}`));
    svg.appendChild(g);
  }
  for (const f of [0, 0.5, 1]) {
    const v = o.yMax * f;
    svg.appendChild(s('line', { x1: PAD.l, x2: W - PAD.r, y1: y(v), y2: y(v), class: 'chart-grid' }));
    svg.appendChild(
      s('text', { x: PAD.l - 6, y: y(v) + 4, 'text-anchor': 'end', class: 'chart-text' }, tickLabel(v)),
    );
  }
  svg.appendChild(s('text', { x: 2, y: PAD.t - 2, class: 'chart-text' }, o.unit));
  const short = (t: number) => formatTime(t, o.tz).replace(/, \d{4}/, '');
  svg.appendChild(s('text', { x: PAD.l, y: H - 6, class: 'chart-text' }, short(o.from)));
  svg.appendChild(
    s('text', { x: W - PAD.r, y: H - 6, 'text-anchor': 'end', class: 'chart-text' }, short(o.to)),
  );
  return { svg, x, y };
}

/**
 * Bars, one per bucket.
 */
export function barChart(o: {
  buckets: Array<{ start: number; value: number }>;
  bucketMs: number;
  from: number;
  to: number;
  tz: string;
  label: string;
  unit: string;
  gaps: Array<[number, number]>;
}) {
  const max = niceMax(Math.max(0, ...o.buckets.map((b) => b.value)));
  const { svg, x, y } = frame({ ...o, yMax: max });
  for (const b of o.buckets) {
    if (!(b.value > 0)) continue;
    const x0 = x(b.start);
    const w = Math.max(1, x(b.start + o.bucketMs) - x0 - 1);
    const r = s('rect', { x: x0, y: y(b.value), width: w, height: y(0) - y(b.value), class: 'chart-bar' });
    r.appendChild(s('title', {}, `${formatTime(b.start, o.tz)}: ${tickLabel(b.value)} ${o.unit}`));
    svg.appendChild(r);
  }
  return svg;
}

/**
 * A line through the points, broken across gaps.
 */
export function lineChart(o: {
  points: Array<{ t: number; value: number }>;
  from: number;
  to: number;
  tz: string;
  label: string;
  unit: string;
  gaps: Array<[number, number]>;
  gapMs: number;
}) {
  const max = niceMax(Math.max(0, ...o.points.map((p) => p.value)));
  const { svg, x, y } = frame({ ...o, yMax: max });
  let d = '';

  let prev: number | undefined;
  for (const p of o.points) {
    d += `${prev === undefined || p.t - prev >= o.gapMs ? 'M' : 'L'}${x(p.t).toFixed(1)},${y(p.value).toFixed(1)} `;
    prev = p.t;
  }
  if (d) svg.appendChild(s('path', { d, class: 'chart-line' }));
  if (o.points.length <= 120)
    for (const p of o.points)
      svg.appendChild(s('circle', { cx: x(p.t), cy: y(p.value), r: 2.5, class: 'chart-dot' }));
  return svg;
}
