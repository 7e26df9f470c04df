/**
 * Tips to Readings for the live pipeline, as a cumulative tip counter (`values.rainTips`): one
 * reading per distinct tip time, the counter raised by the number of tips at that time. The same
 * tips always give the same readings (ts, seq, values), so a re-import is all duplicates in the store.
 */
import type { Reading } from '../../../shared/src/telemetry.ts';
import type { Tip } from './types.ts';

export interface TipsToReadingsOptions {
  siteId: string;
  deviceId: string;
  /** Counter value before the first tip (default 0: a counter that starts from zero). */
  startCount?: number;
  /** seq of the first reading (default 0); seq then runs 0, 1, 2, ... over the readings. */
  startSeq?: number;
  /**
   * Emit a first reading with rainTips = startCount at this time (before the first tip). The storm rule
   * takes a device's earliest counter reading as its baseline (not rain), so without one the tips of
   * the first reading would be lost.
   */
  baselineTs?: number;
  /** Arrival time for every reading (default Date.now). */
  now?: () => number;
}

/** Tips must be in time order (as the parsers return them); throws otherwise. */
export function tipsToReadings(tips: readonly Tip[], opts: TipsToReadingsOptions): Reading[] {
  return [...readingChunks(tips, opts, () => Number.POSITIVE_INFINITY)].flat();
}

/**
 * The same readings, `size()` at a time (asked before each chunk), made as they are asked for: a large
 * file's readings are never all in memory at once.
 */
export function* readingChunks(
  tips: readonly Tip[],
  opts: TipsToReadingsOptions,
  size: () => number,
): Generator<Reading[], void, void> {
  const startCount = opts.startCount ?? 0;
  const startSeq = opts.startSeq ?? 0;
  if (!Number.isInteger(startCount) || startCount < 0)
    throw new RangeError('startCount must be an integer >= 0');
  if (!Number.isInteger(startSeq) || startSeq < 0) throw new RangeError('startSeq must be an integer >= 0');
  const receivedAt = (opts.now ?? Date.now)();
  let readings: Reading[] = [];
  let made = 0;
  let count = startCount;
  let prevTs = Number.NEGATIVE_INFINITY;
  const base = (ts: number): Reading => ({
    siteId: opts.siteId,
    deviceId: opts.deviceId,
    deviceKind: 'rain-gauge',
    ts,
    seq: startSeq,
    receivedAt,
    transport: 'import',
    values: { rainTips: startCount },
  });
  if (opts.baselineTs !== undefined) {
    const first = tips[0];
    if (first !== undefined && opts.baselineTs >= first.ts)
      throw new RangeError('baselineTs must be earlier than the first tip');
    readings.push(base(opts.baselineTs));
    made++;
    prevTs = opts.baselineTs;
  }
  for (let i = 0; i < tips.length; ) {
    const ts = tips[i]!.ts;
    if (ts < prevTs) throw new RangeError(`tips out of time order at line ${tips[i]!.line}`);
    let j = i;
    while (j < tips.length && tips[j]!.ts === ts) j++;
    count += j - i;
    readings.push({
      siteId: opts.siteId,
      deviceId: opts.deviceId,
      deviceKind: 'rain-gauge',
      ts,
      seq: startSeq + made++,
      receivedAt,
      transport: 'import',
      values: { rainTips: count },
    });
    prevTs = ts;
    i = j;
    if (readings.length >= size()) {
      yield readings;
      readings = [];
    }
  }
  if (readings.length) yield readings;
}
