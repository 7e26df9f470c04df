/**
 * Time buckets of a chart: a grid over the range (its bucket size from the ladder of the contract, its
 * start on a local hour, or a local midnight for buckets of a day), and what a bucket keeps of a measure:
 * the sum (rain), or the last value with the smallest and largest (everything else, and a storm's running
 * rain, which only rises within a storm).
 */
import { bucketFor, MAX_CHART_BUCKETS } from '../../../../shared/src/api/chartRanges.ts';
import { tzOffsetMs } from '../../../../shared/src/time.ts';

const HOUR = 3_600_000;

export interface Grid {
  start: number;
  bucketMs: number;
  count: number;
}

/**
 * The grid of [from, to): buckets from the ladder, the first starting on the local hour (or the local
 * midnight, for buckets of a day or longer) at or before `from`, so hourly rain falls on the clock's hours.
 */
export function gridOf(from: number, to: number, tz: string): Grid {
  // The start moves back by up to an hour or a bucket: leave room for it.
  let bucketMs = bucketFor(to - from, MAX_CHART_BUCKETS - 1);
  const alignMs = Math.max(HOUR, bucketMs);
  if (Math.ceil((to - from + alignMs) / bucketMs) > MAX_CHART_BUCKETS)
    bucketMs = bucketFor(to - from + alignMs, MAX_CHART_BUCKETS);
  const align = Math.max(HOUR, bucketMs);
  const off = tzOffsetMs(from, tz);
  const start = Math.floor((from + off) / align) * align - off;
  return { start, bucketMs, count: Math.max(1, Math.ceil((to - start) / bucketMs)) };
}

/** The same range in buckets of `factor` times the size (rain per hour over a finer grid). */
export function coarser(g: Grid, factor: number): Grid {
  const bucketMs = g.bucketMs * factor;
  return { start: g.start, bucketMs, count: Math.ceil(g.count / factor) };
}

/** The bucket of a time, or -1 outside the grid. */
export function bucketIndex(g: Grid, ts: number): number {
  if (ts < g.start) return -1;
  const i = Math.floor((ts - g.start) / g.bucketMs);
  return i < g.count ? i : -1;
}

/** A measure's buckets: the sum, or the last value with the smallest and largest. */
export class BucketSeries {
  readonly sum: Float64Array;
  readonly last: Float64Array;
  readonly min: Float64Array;
  readonly max: Float64Array;
  readonly n: Uint32Array;
  /** Readings seen, in range or not. */
  seen = 0;

  constructor(readonly grid: Grid) {
    this.sum = new Float64Array(grid.count);
    this.last = new Float64Array(grid.count);
    this.min = new Float64Array(grid.count).fill(Number.POSITIVE_INFINITY);
    this.max = new Float64Array(grid.count).fill(Number.NEGATIVE_INFINITY);
    this.n = new Uint32Array(grid.count);
  }

  add(ts: number, v: number): void {
    this.seen++;
    const i = bucketIndex(this.grid, ts);
    if (i < 0) return;
    this.sum[i]! += v;
    this.last[i] = v;
    if (v < this.min[i]!) this.min[i] = v;
    if (v > this.max[i]!) this.max[i] = v;
    this.n[i]!++;
  }

  /** One value per bucket of `kind`; null where the bucket holds no reading. */
  values(kind: 'sum' | 'last' | 'min' | 'max'): Array<number | null> {
    const src = this[kind];
    return Array.from(src, (v, i) => (this.n[i] ? round(v) : null));
  }

  /** The series in buckets `factor` times larger (sums added; last, min and max kept). */
  coarsen(factor: number): BucketSeries {
    if (factor === 1) return this;
    const out = new BucketSeries(coarser(this.grid, factor));
    out.seen = this.seen;
    for (let i = 0; i < this.grid.count; i++) {
      if (!this.n[i]) continue;
      const j = Math.floor(i / factor);
      out.sum[j]! += this.sum[i]!;
      out.last[j] = this.last[i]!;
      out.min[j] = Math.min(out.min[j]!, this.min[i]!);
      out.max[j] = Math.max(out.max[j]!, this.max[i]!);
      out.n[j]! += this.n[i]!;
    }
    return out;
  }
}

/** Values as the answer carries them: six decimals at most. */
export const round = (v: number): number => Math.round(v * 1e6) / 1e6;
