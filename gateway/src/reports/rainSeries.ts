/**
 * The rain of one storm as a chart draws it: the cumulative depth over the storm, at most `maxPoints`
 * points, and the rain per bar (an hour for a storm of a day or two, longer bars for longer storms), read
 * from the gauge's stored readings in pages of `PAGE` rows with the event loop free between them, so a
 * months-long drizzle is neither held in memory nor holds the gateway up.
 *
 * A reading's rain is what the storm rule counts: a cumulative tip counter's increase since the reading
 * before (a drop is a reset: the new count is the rain since), at the gauge's calibration in force at that
 * reading's time, or an interval reading's inches. Readings at a source time already seen count once.
 */
import { tzOffsetMs } from '../../../shared/src/time.ts';
import type { StoredReading } from '../store/readings.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const PAGE = 2000;
/** Bar lengths, shortest first: the first that gives at most `MAX_BARS` bars over the storm is used. */
const BARS = [HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY, 7 * DAY];
const MAX_BARS = 72;

export interface RainSeries {
  /** [time, cumulative inches] from the storm's start, oldest first. */
  points: Array<[ts: number, inches: number]>;
  /** Rain per bar; `from` is the bar's start (local hours and days in the site's zone). */
  bars: Array<{ from: number; inches: number }>;
  barMs: number;
}

/** What the series is read from: the store's readings (`ReadingStore`). */
export interface RainReadings {
  query(o: { siteId: string; deviceId: string; from: number; to: number; limit: number }): StoredReading[];
  counterBefore(siteId: string, deviceId: string, ts: number): { ts: number; tips: number } | undefined;
}

export interface RainSeriesInput {
  siteId: string;
  deviceId: string;
  /** The storm's first and last tip, epoch ms. */
  from: number;
  to: number;
  /** The gauge's inches per tip in force at a source time. */
  inchesPerTipAt(ts: number): number;
  timezone: string;
  maxPoints?: number;
}

/** The bar length for a storm of `spanMs`. */
export function barLength(spanMs: number): number {
  return BARS.find((b) => spanMs / b <= MAX_BARS) ?? Math.ceil(spanMs / MAX_BARS / DAY) * DAY;
}

/** The inches-per-tip function of a gauge's calibration: earlier ones before their `until`, else `now`. */
export function calibrationAt(
  now: number | undefined,
  earlier: ReadonlyArray<{ until: number; inchesPerTip: number }> = [],
): (ts: number) => number {
  return (ts) => earlier.find((c) => ts < c.until)?.inchesPerTip ?? now ?? 0;
}

export async function rainSeries(db: RainReadings, i: RainSeriesInput): Promise<RainSeries> {
  const span = Math.max(1, i.to - i.from);
  const step = span / (i.maxPoints ?? 240);
  const barMs = barLength(span);
  // The zone's offset, once per hour of source time (it changes on the hour, where it changes).
  const offsets = new Map<number, number>();
  const offset = (ts: number) => {
    const h = Math.floor(ts / HOUR);
    let o = offsets.get(h);
    if (o === undefined) {
      o = tzOffsetMs(h * HOUR, i.timezone);
      offsets.set(h, o);
    }
    return o;
  };
  const bars = new Map<number, number>();
  const points: RainSeries['points'] = [[i.from, 0]];
  let counter = db.counterBefore(i.siteId, i.deviceId, i.from)?.tips;
  let total = 0;
  let bucket = -1;
  let pending: [number, number] | undefined;
  let cursor = i.from;
  let lastTs = Number.NEGATIVE_INFINITY;
  for (;;) {
    const page = db.query({ siteId: i.siteId, deviceId: i.deviceId, from: cursor, to: i.to, limit: PAGE });
    for (const r of page) {
      if (r.ts === lastTs) continue;
      lastTs = r.ts;
      let inches = 0;
      const tips = r.values.rainTips;
      if (tips !== undefined) {
        const added = counter === undefined ? 0 : tips >= counter ? tips - counter : tips;
        counter = tips;
        inches = added * i.inchesPerTipAt(r.ts);
      } else if (r.values.rainIn !== undefined) inches = r.values.rainIn;
      if (inches <= 0) continue;
      total += inches;
      const o = offset(r.ts);
      const bar = Math.floor((r.ts + o) / barMs) * barMs - o;
      bars.set(bar, (bars.get(bar) ?? 0) + inches);
      const b = Math.floor((r.ts - i.from) / step);
      if (b !== bucket && pending) points.push(pending);
      bucket = b;
      pending = [r.ts, total];
    }
    if (page.length < PAGE) break;
    cursor = page.at(-1)!.ts + 1;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  if (pending) points.push(pending);
  return {
    points,
    bars: [...bars].sort((a, b) => a[0] - b[0]).map(([from, inches]) => ({ from, inches })),
    barMs,
  };
}
