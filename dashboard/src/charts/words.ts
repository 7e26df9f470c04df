/**
 * A chart in words, for those who do not see it: a summary under it ("Storm threshold 0.50 in; storm
 * Nov 30 6:53 AM to Dec 1 5:17 AM, 0.62 in, threshold crossed at 7:12 PM") and its data as a table
 * behind a <details>. Times are the site's (shared/src/time.ts), whatever the browser's zone.
 */
import type { ChartBand, ChartPanel, ChartSeries } from '../../../shared/src/api/charts.ts';
import { formatMeasure, measureInfo } from '../../../shared/src/api/measures.ts';
import { localParts } from '../../../shared/src/time.ts';
import { h } from '../ui/dom.js';
import { bucketTimes, panelIndex } from './data.js';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "7:12 PM" in the site's zone. */
export function clock(ts: number, tz: string): string {
  const p = localParts(ts, tz);
  const h12 = p.hour % 12 === 0 ? 12 : p.hour % 12;
  return `${h12}:${String(p.minute).padStart(2, '0')} ${p.hour < 12 ? 'AM' : 'PM'}`;
}

/** "Nov 30" in the site's zone. */
export function day(ts: number, tz: string): string {
  const p = localParts(ts, tz);
  return `${MONTHS[p.month - 1]} ${p.day}`;
}

/** "Nov 30 7:12 PM"; only "7:12 PM" when `sameDayAs` falls on the same local day. */
export function when(ts: number, tz: string, sameDayAs?: number): string {
  if (sameDayAs !== undefined && day(sameDayAs, tz) === day(ts, tz)) return clock(ts, tz);
  return `${day(ts, tz)} ${clock(ts, tz)}`;
}

const lower = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);

function stretch(b: ChartBand, tz: string, label = lower(b.label)): string {
  const from = Date.parse(b.from);
  return `${label} ${when(from, tz)} to ${when(Date.parse(b.to), tz, from)}`;
}

/** The main figure of a series: its total (rain), or its latest value and its highest. */
function seriesWords(s: ChartSeries, p: ChartPanel, tz: string): string | undefined {
  const vals = s.values.filter((v): v is number => v !== null);
  if (!vals.length) return `${s.label}: no readings in this period`;
  if (s.bucket === 'sum')
    return `${s.label.replace(/ per .*$/, '')} in this period: ${fmt(
      s,
      vals.reduce((a, b) => a + b, 0),
    )}`;
  if (s.bucket === 'running' || s.reference) return undefined;
  const lastIdx = s.values.findLastIndex((v) => v !== null);
  const at = Date.parse(p.start) + panelIndex(p, s, lastIdx) * p.bucketMs;
  return `${s.label}: ${fmt(s, vals[vals.length - 1]!)} at ${when(at, tz)}, highest ${fmt(s, Math.max(...vals))}`;
}

const fmt = (s: ChartSeries, v: number) => formatMeasure(s.measure, v);

/** The chart's summary, one sentence a part. */
export function summary(p: ChartPanel, tz: string): string {
  const parts: string[] = [];
  for (const l of p.lines) parts.push(l.label);
  for (const s of p.series) {
    const w = seriesWords(s, p, tz);
    if (w) parts.push(w);
  }
  const used = new Set<number>();
  for (const b of p.bands.filter((x) => x.kind === 'storm')) {
    const from = Date.parse(b.from);
    const to = Date.parse(b.to);
    let text = stretch(b, tz);
    if (b.detail) text += `, ${b.detail}`;
    p.markers.forEach((m, i) => {
      const at = Date.parse(m.at);
      if (at < from || at > to) return;
      used.add(i);
      text += `, ${lower(m.label)} at ${when(at, tz, from)}`;
    });
    parts.push(text);
  }
  for (const b of p.bands.filter((x) => x.kind === 'alarm')) parts.push(stretch(b, tz));
  // Not yet installed, or retired: said, and never a gap.
  for (const b of p.bands.filter((x) => x.kind === 'absent')) parts.push(stretch(b, tz));
  p.markers.forEach((m, i) => {
    if (!used.has(i)) parts.push(`${m.label} at ${when(Date.parse(m.at), tz)}`);
  });
  const gaps = p.bands.filter((x) => x.kind === 'gap');
  if (gaps.length === 1) parts.push(stretch(gaps[0]!, tz, 'no data (a gap in the evidence)'));
  else if (gaps.length > 1) {
    const longest = gaps.reduce((a, b) =>
      Date.parse(b.to) - Date.parse(b.from) > Date.parse(a.to) - Date.parse(a.from) ? b : a,
    );
    parts.push(`${gaps.length} gaps without data (no evidence), the longest ${stretch(longest, tz, 'from')}`);
  }
  return `${parts.map((x) => x.charAt(0).toUpperCase() + x.slice(1)).join('. ')}.`;
}

/** A series' column heading: its words and unit. */
const heading = (s: ChartSeries) => (s.unit ? `${s.label} (${s.unit})` : s.label);

/** The chart's data as a table: one row per bucket holding a reading. */
export function dataTable(p: ChartPanel, tz: string): HTMLElement {
  const xs = bucketTimes(p);
  const cols = p.series.map((s) => {
    const byIndex = new Map<number, number>();
    s.values.forEach((v, j) => {
      if (v !== null) byIndex.set(panelIndex(p, s, j), v);
    });
    return { s, byIndex };
  });
  const rows = xs.flatMap((t, i) =>
    cols.some((c) => c.byIndex.has(i))
      ? [
          h(
            'tr',
            null,
            h('th', { scope: 'row' }, h('time', { datetime: new Date(t).toISOString() }, when(t, tz))),
            cols.map((c) => {
              const v = c.byIndex.get(i);
              return h(
                'td',
                { class: 'num' },
                v === undefined ? '' : v.toFixed(measureInfo(c.s.measure).decimals),
              );
            }),
          ),
        ]
      : [],
  );
  const bucket = p.bucketMs >= 3_600_000 ? `${p.bucketMs / 3_600_000} h` : `${p.bucketMs / 60_000} min`;
  return h(
    'details',
    { class: 'chart-data' },
    h('summary', null, `Data table (${rows.length} rows, buckets of ${bucket})`),
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'chart-table' },
        h('caption', { class: 'sr-only' }, `${p.title}, times in ${tz}`),
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            h('th', { scope: 'col' }, 'Time'),
            cols.map((c) => h('th', { scope: 'col' }, heading(c.s))),
          ),
        ),
        h('tbody', null, rows),
      ),
    ),
  );
}
