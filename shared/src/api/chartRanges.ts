/**
 * The ranges of the charts (GET /api/charts) and their buckets: the picker's ranges with their words,
 * the bucket sizes a range is downsampled into, at most MAX_CHART_BUCKETS a series. No zod here: the
 * dashboard bundles this file.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The ranges the dashboard offers, each ending now. */
export const CHART_RANGES = ['day', 'week', 'month', 'quarter', 'year'] as const;
export type ChartRange = (typeof CHART_RANGES)[number];
export const CHART_RANGE_MS: Readonly<Record<ChartRange, number>> = {
  day: DAY,
  week: 7 * DAY,
  month: 31 * DAY,
  quarter: 92 * DAY,
  year: 366 * DAY,
};
/** The picker's words. */
export const CHART_RANGE_LABELS: Readonly<Record<ChartRange, string>> = {
  day: 'Day',
  week: 'Week',
  month: 'Month',
  quarter: '3 months',
  year: 'Year',
};
/** The longest range asked (a leap year). */
export const MAX_CHART_SPAN_MS = CHART_RANGE_MS.year;
/** The most buckets of one series. */
export const MAX_CHART_BUCKETS = 1000;
/** Bucket sizes, smallest first: a range takes the smallest that gives at most MAX_CHART_BUCKETS. */
export const BUCKET_LADDER_MS: readonly number[] = [
  60_000,
  120_000,
  300_000,
  600_000,
  900_000,
  1_800_000,
  HOUR,
  2 * HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  DAY,
];

/** The bucket size for a span: the smallest of the ladder giving at most `max` buckets. */
export function bucketFor(spanMs: number, max = MAX_CHART_BUCKETS): number {
  for (const b of BUCKET_LADDER_MS) if (Math.ceil(spanMs / b) <= max) return b;
  const day = BUCKET_LADDER_MS[BUCKET_LADDER_MS.length - 1]!;
  return Math.ceil(spanMs / max / day) * day;
}
