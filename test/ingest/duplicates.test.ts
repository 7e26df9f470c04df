/** Duplicate deliveries by seq and source time, and a counter that starts again (a rejoin, a restart). */
import { describe, expect, it } from 'vitest';
import { Duplicates } from '../../gateway/src/ingest/duplicates.ts';
import type { ReadingStore } from '../../gateway/src/store/readings.ts';
import type { Reading } from '../../shared/src/telemetry.ts';

const store = { recentSeqs: () => [] } as unknown as ReadingStore;
const MIN = 60_000;
const r = (seq: number, ts: number, arrivalTs?: boolean): Reading => ({
  siteId: 's',
  deviceId: 'd',
  deviceKind: 'rain-gauge',
  ts,
  seq,
  receivedAt: ts,
  transport: 'lorawan',
  values: {},
  ...(arrivalTs ? { arrivalTs } : {}),
});

describe('Duplicates', () => {
  it('takes the same seq at the same source time as one delivery', () => {
    const d = new Duplicates(store, 600);
    expect(d.seenSeq(r(41, 10 * MIN))).toBe(false);
    expect(d.seenSeq(r(41, 10 * MIN))).toBe(true);
  });

  it('forgets the seqs of a device whose counter starts again with a newer time of its own', () => {
    const d = new Duplicates(store, 600);
    for (const [seq, t] of [
      [0, 0],
      [1, 5],
      [2, 9],
    ] as const)
      expect(d.seenSeq(r(seq, t * MIN))).toBe(false);
    // Joined again: fCnt 0, 1, 2 within the window of the first 0, 1, 2, at newer times.
    for (const [seq, t] of [
      [0, 10],
      [1, 12],
      [2, 14],
    ] as const)
      expect(d.seenSeq(r(seq, t * MIN)), `fCnt ${seq} after the rejoin`).toBe(false);
    // A redelivery keeps its time: still one reading.
    expect(d.seenSeq(r(2, 14 * MIN))).toBe(true);
  });

  it('keeps the seqs of a device stamped on arrival: a redelivery of it looks the same as a restart', () => {
    const d = new Duplicates(store, 600);
    expect(d.seenSeq(r(5, 0, true))).toBe(false);
    expect(d.seenSeq(r(6, MIN, true))).toBe(false);
    expect(d.seenSeq(r(5, 2 * MIN, true))).toBe(true);
  });
});
