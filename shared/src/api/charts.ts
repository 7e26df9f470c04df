/**
 * GET /api/charts: a site's charts over a range of a day to a year, downsampled into at most
 * `MAX_CHART_BUCKETS` time buckets per series, with the guides that show the law on them, in generic
 * terms: lines (a storm threshold, half of a trap's capacity, a tank's high level), bands (storm events,
 * alarm episodes, gaps in the evidence, the times a device was not yet installed or retired) and markers (the moment a storm crossed its threshold, a cleanout).
 * The rules say which lines and markers a device's charts carry; the dashboard draws whatever it is given.
 */
import { z } from 'zod';
import { CHART_RANGES } from './chartRanges.ts';
import { isoTime } from './common.ts';

/** A legal line on a series: the threshold, half of the capacity, the high level, in the series' unit. */
export const chartLineSchema = z.object({
  /** The measure of the series it is read against. */
  measure: z.string(),
  value: z.number(),
  label: z.string(),
});
export type ChartLine = z.infer<typeof chartLineSchema>;

export const CHART_BAND_KINDS = ['storm', 'alarm', 'gap', 'absent'] as const;
export type ChartBandKind = (typeof CHART_BAND_KINDS)[number];

/**
 * A stretch of time: a storm event, an alarm episode, a gap in the evidence (no readings while the
 * device was expected to report), or a time the device was not expected to (`absent`: not yet installed,
 * or retired), which is no gap.
 */
export const chartBandSchema = z.object({
  kind: z.enum(CHART_BAND_KINDS),
  from: isoTime,
  to: isoTime,
  label: z.string(),
  /** A figure of it, written out ("0.62 in" for a storm). */
  detail: z.string().optional(),
});
export type ChartBand = z.infer<typeof chartBandSchema>;

/** A moment: a threshold crossed, a cleanout seen in the data or recorded. */
export const chartMarkerSchema = z.object({
  measure: z.string(),
  at: isoTime,
  label: z.string(),
});
export type ChartMarker = z.infer<typeof chartMarkerSchema>;

const values = z.array(z.number().nullable());

export const chartSeriesSchema = z.object({
  /** A measure id (`shared/src/api/measures.ts`). */
  measure: z.string(),
  /** Its words on this chart: "Rain per hour", "Background + 50 NTU". */
  label: z.string(),
  unit: z.string(),
  /** The panel's axis it is read on (0: left, 1: right). */
  axis: z.number().int().min(0).max(1),
  style: z.enum(['bars', 'line']),
  /** How a bucket holds its readings (measures.ts): sum, running, last. */
  bucket: z.enum(['sum', 'running', 'last']),
  /** Its own bucket size, a whole multiple of the panel's (rain is summed per hour at least). */
  bucketMs: z.number().int().positive(),
  /** One per bucket of its size from the panel's start; null: no reading in that bucket. */
  values,
  /** With `last`: each bucket's smallest and largest reading. */
  min: values.optional(),
  max: values.optional(),
  /** Not this device's reading but what it is compared with (the background plus the margin). */
  reference: z.boolean().optional(),
});
export type ChartSeries = z.infer<typeof chartSeriesSchema>;

export const chartPanelSchema = z.object({
  /** `${deviceId}/${panel}`: stable, for the page to keep its place. */
  id: z.string(),
  deviceId: z.string(),
  /** "Rain at Gauge 1". */
  title: z.string(),
  /** The first bucket's start; the buckets are `bucketMs` long, `count` of them. */
  start: isoTime,
  bucketMs: z.number().int().positive(),
  count: z.number().int().min(0),
  /** One or two value axes: the label with its unit ("Rain (in)"). */
  axes: z
    .array(z.object({ label: z.string(), unit: z.string() }))
    .min(1)
    .max(2),
  series: z.array(chartSeriesSchema),
  lines: z.array(chartLineSchema),
  bands: z.array(chartBandSchema),
  markers: z.array(chartMarkerSchema),
});
export type ChartPanel = z.infer<typeof chartPanelSchema>;

export const chartsAnswerSchema = z.object({
  siteId: z.string(),
  timezone: z.string(),
  from: isoTime,
  to: isoTime,
  range: z.enum(CHART_RANGES).nullable(),
  /** The finest bucket of the answer (rain bars may be coarser). */
  bucketMs: z.number().int().positive(),
  panels: z.array(chartPanelSchema),
});
export type ChartsAnswer = z.infer<typeof chartsAnswerSchema>;
