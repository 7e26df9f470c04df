/** A device's recent seqs (ingest/seqRing.ts): found within the window, bounded, pruned by source time. */
import { describe, expect, it } from 'vitest';
import { SeqRing } from '../../gateway/src/ingest/seqRing.ts';

describe('the seq ring', () => {
  it('finds a seq only within the window of its source time', () => {
    const r = new SeqRing(16);
    r.add(7, 1_000);
    expect(r.has(7, 1_500, 600)).toBe(true);
    expect(r.has(7, 1_700, 600)).toBe(false);
    expect(r.has(8, 1_000, 600)).toBe(false);
  });

  it('grows to its capacity, then forgets the oldest first', () => {
    const r = new SeqRing(32, 2);
    for (let i = 0; i < 100; i++) r.add(i, i);
    expect(r.length).toBe(32);
    expect(r.has(67, 67, 0)).toBe(false);
    for (let i = 68; i < 100; i++) expect(r.has(i, i, 0)).toBe(true);
  });

  it('prunes the entries older than a time, and forgets one seq on request', () => {
    const r = new SeqRing(64);
    for (let i = 0; i < 40; i++) r.add(i, i * 10);
    r.pruneBefore(200);
    expect(r.length).toBe(20);
    expect(r.has(19, 190, 0)).toBe(false);
    expect(r.has(20, 200, 0)).toBe(true);
    r.forget(20);
    expect(r.has(20, 200, 0)).toBe(false);
    expect(r.length).toBe(20);
  });

  it('finds a seq below the largest held after the counter came round, and a repeat of the largest', () => {
    const r = new SeqRing(16);
    for (const seq of [65_534, 65_535, 0, 1]) r.add(seq, 1_000 + seq);
    expect(r.has(65_535, 1_000 + 65_535, 10)).toBe(true);
    expect(r.has(1, 1_001, 10)).toBe(true);
    expect(r.has(2, 1_002, 10)).toBe(false);
    expect(r.has(70_000, 1_000, 1e9)).toBe(false);
  });

  it('keeps the newest source time it was given, through pruning and forgetting', () => {
    const r = new SeqRing(8, 2);
    expect(r.newestTs).toBe(Number.NEGATIVE_INFINITY);
    for (const [seq, ts] of [
      [1, 500],
      [2, 900],
      [3, 700],
    ] as const)
      r.add(seq, ts);
    expect(r.newestTs).toBe(900);
    r.pruneBefore(1_000);
    r.forget(2);
    expect(r.length).toBe(0);
    expect(r.newestTs).toBe(900);
    // Timestamps beyond the small-integer range (epoch milliseconds) keep their exact value.
    r.add(4, 1_796_261_099_043.5);
    expect(r.has(4, 1_796_261_099_043.5, 0)).toBe(true);
    expect(r.newestTs).toBe(1_796_261_099_043.5);
  });
});
