/**
 * A panel of GET /api/charts as uPlot's aligned data: one x per bucket of the panel (its start, epoch ms),
 * one row per series. A series in larger buckets (rain per hour over quarter hours) has its values at the
 * first bucket of each of its own and nothing between. A bucket without a reading is drawn through
 * (`undefined`: a device reporting less often than the buckets are long) unless it lies in a gap in the
 * evidence or a time the device was not in service, where the line breaks (`null`); a storm's running
 * rain breaks outside its storms.
 */
import type { ChartPanel, ChartSeries } from '../../../shared/src/api/charts.ts';

export type Value = number | null | undefined;

/** The times of the panel's buckets. */
export function bucketTimes(p: ChartPanel): number[] {
  const start = Date.parse(p.start);
  return Array.from({ length: p.count }, (_, i) => start + i * p.bucketMs);
}

/** The spans of the panel's gaps in the evidence and of the times out of service, epoch ms. */
export function gapSpans(p: ChartPanel): Array<[number, number]> {
  return p.bands
    .filter((b) => b.kind === 'gap' || b.kind === 'absent')
    .map((b) => [Date.parse(b.from), Date.parse(b.to)]);
}

/** The index in the panel's buckets of a series' bucket j. */
export function panelIndex(p: ChartPanel, s: ChartSeries, j: number): number {
  return j * Math.max(1, Math.round(s.bucketMs / p.bucketMs));
}

/** One series as a row of the panel's buckets. */
export function seriesRow(p: ChartPanel, s: ChartSeries, xs: readonly number[]): Value[] {
  const row: Value[] = new Array(p.count).fill(undefined);
  const gaps = gapSpans(p);
  const inGap = (t: number) => gaps.some(([a, b]) => t + p.bucketMs > a && t < b);
  s.values.forEach((v, j) => {
    const i = panelIndex(p, s, j);
    if (i >= p.count) return;
    if (v !== null) row[i] = v;
    else if (s.style === 'bars') row[i] = undefined;
    else row[i] = s.bucket === 'running' || inGap(xs[i]!) ? null : undefined;
  });
  return row;
}

/** The panel as uPlot's data: [times, ...one row per series]. */
export function alignedData(p: ChartPanel): [number[], ...Value[][]] {
  const xs = bucketTimes(p);
  return [xs, ...p.series.map((s) => seriesRow(p, s, xs))];
}
