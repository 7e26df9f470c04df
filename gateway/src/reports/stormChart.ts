/**
 * A storm's rain chart as an SVG string, drawn on the server so that the page, its printout and its PDF
 * all carry it: the cumulative rain over the storm against the site's threshold line ("0.5 in
 * threshold"), the moment it was crossed, the rain per hour (or per longer bar) beneath, and times in the
 * site's zone. Presentation attributes only (fill, stroke, font-size), never a `style` attribute, which
 * the gateway's Content-Security-Policy would block. Every text is escaped.
 */
import { addDays, formatLocal, localParts, zonedTime } from '../../../shared/src/time.ts';
import type { RainSeries } from './rainSeries.ts';

/** The drawing's size and its plot area's margins, in SVG units. */
export const CHART = { width: 640, height: 260, left: 52, right: 20, top: 28, bottom: 52 } as const;
const PLOT_W = CHART.width - CHART.left - CHART.right;
const PLOT_H = CHART.height - CHART.top - CHART.bottom;
const PLOT_BOTTOM = CHART.top + PLOT_H;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const TICKS = [HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY, 2 * DAY, 7 * DAY, 14 * DAY, 28 * DAY];
const INCH_STEPS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10, 20, 50];
const RED = '#b00020';
const BLUE = '#1f5fa8';

export const escapeXml = (s: unknown): string =>
  String(s ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** An inch value as a person writes it: 0.5, 0.394, 1.25 (at most three decimals). */
export const inchText = (v: number): string => String(Number(v.toFixed(3)));

/** The top of the inch axis: a round number above both the storm's total and the threshold. */
export function inchAxis(maxIn: number): { max: number; step: number } {
  const want = Math.max(maxIn, 0.01) * 1.12;
  const step = INCH_STEPS.find((s) => want / s <= 6) ?? Math.ceil(want / 6);
  return { max: Math.ceil(want / step - 1e-9) * step, step };
}

/** The y of a depth on a chart whose axis tops out at `yMax` inches. */
export const yOfInches = (inches: number, yMax: number): number =>
  round(PLOT_BOTTOM - (inches / yMax) * PLOT_H);

const round = (v: number) => Math.round(v * 10) / 10;

export interface StormChartInput {
  /** The storm's id (for the drawing's element ids), its first and last tip and its total (the record's). */
  id: string;
  start: number;
  end: number;
  inches: number;
  /** When the storm reached the threshold, if it did. */
  thresholdAt?: number | undefined;
  /** The gauge as people know it. */
  gauge: string;
  thresholdIn: number;
  timezone: string;
  series: RainSeries;
}

/** Where the time ticks fall: local hours (a multiple of the step) or local midnights, in the site's zone. */
export function timeTicks(from: number, to: number, tz: string): { step: number; ticks: number[] } {
  const step = TICKS.find((s) => (to - from) / s <= 7) ?? Math.ceil((to - from) / 7 / DAY) * DAY;
  const p = localParts(from, tz);
  const ticks: number[] = [];
  if (step < DAY) {
    // Local hours that are a multiple of the step, found again after each step (a DST change moves them).
    const h = step / HOUR;
    const aligned = (ts: number) => {
      const q = localParts(ts, tz);
      return zonedTime(q.year, q.month, q.day, tz, Math.floor(q.hour / h) * h);
    };
    for (let t = aligned(from); t <= to && ticks.length < 40; ) {
      if (t >= from) ticks.push(t);
      const next = aligned(t + step);
      t = next > t ? next : t + step;
    }
  } else {
    const days = Math.round(step / DAY);
    for (let d = 0; ticks.length < 40; d += days) {
      const day = addDays(p.year, p.month, p.day, d);
      const t = zonedTime(day.year, day.month, day.day, tz);
      if (t > to) break;
      if (t >= from) ticks.push(t);
    }
  }
  return { step, ticks };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const dayLabel = (ts: number, tz: string) => {
  const p = localParts(ts, tz);
  return `${MONTHS[p.month - 1]} ${p.day}`;
};
const hourLabel = (ts: number, tz: string) => {
  const p = localParts(ts, tz);
  const h = p.hour % 12 === 0 ? 12 : p.hour % 12;
  return `${h}${p.minute ? `:${String(p.minute).padStart(2, '0')}` : ''} ${p.hour < 12 ? 'AM' : 'PM'}`;
};
/** "Nov 20, 3:50 PM": a moment on the chart. */
export const momentLabel = (ts: number, tz: string): string => `${dayLabel(ts, tz)}, ${hourLabel(ts, tz)}`;
/** The zone's short name at `ts` ("EST"). */
const zoneName = (ts: number, tz: string) => formatLocal(ts, tz).split(' ').at(-1) ?? tz;

export function stormChart(c: StormChartInput): string {
  const pad = Math.max((c.end - c.start) * 0.03, 5 * MINUTE);
  const x0 = c.start - pad;
  const x1 = Math.max(c.end + pad, c.start + HOUR);
  const xOf = (ts: number) => round(CHART.left + ((ts - x0) / (x1 - x0)) * PLOT_W);
  const last = c.series.points.at(-1)?.[1] ?? 0;
  const axis = inchAxis(Math.max(c.inches, last, c.thresholdIn));
  const yOf = (v: number) => yOfInches(v, axis.max);
  const uid = `storm-${c.id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const thr = inchText(c.thresholdIn);
  const tz = c.timezone;
  const out: string[] = [];
  const text = (x: number, y: number, s: string, attrs = '') =>
    `<text x="${x}" y="${y}"${attrs ? ` ${attrs}` : ''}>${escapeXml(s)}</text>`;

  // Inch gridlines and labels.
  for (let v = 0; v <= axis.max + 1e-9; v += axis.step) {
    const y = yOf(v);
    out.push(
      `<line class="grid" x1="${CHART.left}" x2="${CHART.left + PLOT_W}" y1="${y}" y2="${y}" stroke="#ddd" stroke-width="1"/>`,
      text(CHART.left - 6, y + 4, inchText(v), `text-anchor="end" data-inches="${inchText(v)}"`),
    );
  }
  // Rain per bar, beneath the curve, cut to the plot (a bar's hour may begin before the storm's start).
  const [left, right] = [CHART.left, CHART.left + PLOT_W];
  for (const b of c.series.bars) {
    const y = yOf(b.inches);
    const bx0 = Math.max(left, xOf(b.from) + 0.5);
    const bx1 = Math.min(right, xOf(b.from + c.series.barMs) - 0.5);
    if (bx1 <= bx0) continue;
    out.push(
      `<rect class="bar" x="${round(bx0)}" y="${y}" width="${round(bx1 - bx0)}" height="${round(PLOT_BOTTOM - y)}" fill="#9ec5ea"><title>${escapeXml(
        `${momentLabel(b.from, tz)}: ${inchText(b.inches)} in`,
      )}</title></rect>`,
    );
  }
  // Time axis: ticks at local hours or midnights, the date under the first tick of each day.
  const { step, ticks } = timeTicks(x0, x1, tz);
  let shownDay = '';
  for (const t of ticks) {
    const x = xOf(t);
    const day = dayLabel(t, tz);
    out.push(
      `<line class="tick" x1="${x}" x2="${x}" y1="${PLOT_BOTTOM}" y2="${PLOT_BOTTOM + 5}" stroke="#555"/>`,
      text(x, PLOT_BOTTOM + 18, step < DAY ? hourLabel(t, tz) : day, 'text-anchor="middle"'),
    );
    if (step < DAY && day !== shownDay) out.push(text(x, PLOT_BOTTOM + 32, day, 'text-anchor="middle"'));
    shownDay = day;
  }
  out.push(
    `<line class="axis" x1="${CHART.left}" x2="${CHART.left + PLOT_W}" y1="${PLOT_BOTTOM}" y2="${PLOT_BOTTOM}" stroke="#555"/>`,
    `<line class="axis" x1="${CHART.left}" x2="${CHART.left}" y1="${CHART.top}" y2="${PLOT_BOTTOM}" stroke="#555"/>`,
    text(
      CHART.left + PLOT_W / 2,
      CHART.height - 4,
      `Time (${zoneName(c.start, tz)})`,
      'text-anchor="middle"',
    ),
    text(
      12,
      CHART.top + PLOT_H / 2,
      'Rain (in)',
      `text-anchor="middle" transform="rotate(-90 12 ${CHART.top + PLOT_H / 2})"`,
    ),
  );
  // The cumulative rain.
  const curve = c.series.points.map(([t, v]) => `${xOf(t)},${yOf(v)}`).join(' ');
  out.push(
    `<polyline class="rain" points="${curve}" fill="none" stroke="${BLUE}" stroke-width="2" stroke-linejoin="round"/>`,
  );
  // The threshold and its crossing.
  const ty = yOf(c.thresholdIn);
  out.push(
    `<line class="threshold" x1="${CHART.left}" x2="${CHART.left + PLOT_W}" y1="${ty}" y2="${ty}" stroke="${RED}" stroke-width="1.5" stroke-dasharray="6 4" data-inches="${thr}"/>`,
    // At the left, above the line: the curve is below it until the crossing.
    text(CHART.left + 6, ty - 5, `${thr} in threshold`, `class="threshold-label" fill="${RED}"`),
  );
  if (c.thresholdAt !== undefined) {
    const cx = xOf(c.thresholdAt);
    const label = `reached ${momentLabel(c.thresholdAt, tz)}`;
    // Right of the crossing and below the line (the curve is above it from there on), or, near the
    // plot's right end, left of it and above the line (the curve is below it until then).
    const right = cx < CHART.left + PLOT_W - 150;
    out.push(
      `<line x1="${cx}" x2="${cx}" y1="${ty}" y2="${PLOT_BOTTOM}" stroke="${RED}" stroke-width="1" stroke-dasharray="2 3"/>`,
      `<circle class="crossing" cx="${cx}" cy="${ty}" r="5" fill="${RED}" stroke="#fff" stroke-width="1.5"><title>${escapeXml(
        `${thr} in ${label}`,
      )}</title></circle>`,
      right
        ? text(cx + 8, ty + 16, label, `class="crossing-label" fill="${RED}"`)
        : text(cx - 8, ty - 6, label, `class="crossing-label" text-anchor="end" fill="${RED}"`),
    );
  }
  // Legend.
  const barWords = c.series.barMs === HOUR ? 'Rain per hour' : `Rain per ${durationWords(c.series.barMs)}`;
  out.push(
    `<line x1="${CHART.left}" x2="${CHART.left + 18}" y1="12" y2="12" stroke="${BLUE}" stroke-width="2"/>`,
    text(CHART.left + 22, 16, `Rain since the storm began (${inchText(c.inches)} in in all)`),
    `<rect x="${CHART.left + 290}" y="6" width="12" height="12" fill="#9ec5ea"/>`,
    text(CHART.left + 306, 16, barWords),
  );
  const title = `Rain at ${c.gauge} from ${momentLabel(c.start, tz)} to ${momentLabel(c.end, tz)}: ${inchText(
    c.inches,
  )} in; threshold ${thr} in${c.thresholdAt !== undefined ? `, ${`reached ${momentLabel(c.thresholdAt, tz)}`}` : ', not reached'}.`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" class="storm-chart" viewBox="0 0 ${CHART.width} ${CHART.height}" width="${CHART.width}" height="${CHART.height}"` +
    ` role="img" aria-labelledby="${uid}-title" font-family="system-ui, sans-serif" font-size="11" fill="#222"` +
    ` data-threshold-in="${thr}" data-y-max="${inchText(axis.max)}" data-plot-top="${CHART.top}" data-plot-bottom="${PLOT_BOTTOM}">` +
    `<title id="${uid}-title">${escapeXml(title)}</title>${out.join('')}</svg>`
  );
}

/** "3 hours", "day", "7 days": a bar's length in words. */
function durationWords(ms: number): string {
  if (ms === DAY) return 'day';
  if (ms % DAY === 0) return `${ms / DAY} days`;
  return `${ms / HOUR} hours`;
}
