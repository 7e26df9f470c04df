/** The storm rule's window (storm-inspection/window.ts): chunks that keep every reading exactly. */
import { describe, expect, it } from 'vitest';
import {
  CHUNK,
  decodeChunk,
  encodeChunk,
  insertAt,
  type StormEntry,
  seek,
  windowEntries,
  windowOf,
} from '../../../gateway/src/rules/storm-inspection/window.ts';
import { rng, T0 } from '../helpers.ts';

describe('storm-inspection: the window of readings', () => {
  it('encodes and decodes a chunk exactly: counters, resets, interval inches, odd numbers, late arrivals', () => {
    const r = rng(3);
    const entries: StormEntry[] = [];
    let ts = T0;
    let c = 1000;
    for (let i = 0; i < 300; i++) {
      ts += 1 + Math.floor(r() * 90_000);
      const kind = r() < 0.3 ? 1 : 0;
      if (kind === 0) c = r() < 0.05 ? Math.floor(r() * 5) : c + Math.floor(r() * 3);
      const value = kind === 1 ? Math.round(r() * 300) / 10_000 : r() < 0.02 ? c + 0.5 : c;
      const delay =
        r() < 0.5 ? 0 : r() < 0.9 ? Math.floor(r() * 5000) : -Math.floor(r() * 2000) + 2 * 86_400_000;
      entries.push([ts, kind, value, ts + delay]);
    }
    const d = encodeChunk(entries);
    expect(decodeChunk(entries[0]![0], d)).toEqual(entries);
    // A live gauge's readings cost a few bytes each.
    const live: StormEntry[] = Array.from({ length: CHUNK }, (_, i) => [
      T0 + i * 60_000,
      0,
      5000 + i,
      T0 + i * 60_000 + 40,
    ]);
    expect(encodeChunk(live).length).toBeLessThan(CHUNK * 8);
  });

  it('keeps every reading, in source order, through appends and late inserts that split chunks', () => {
    const r = rng(5);
    const all: StormEntry[] = [];
    const base = { counter: null, sumN: 0, ts: null };
    let w = windowOf([], base);
    for (let i = 0; i < 2000; i++) {
      const ts = T0 + Math.floor(r() * 10_000_000);
      if (all.some((e) => e[0] === ts)) continue;
      const e: StormEntry = [ts, r() < 0.5 ? 0 : 1, Math.floor(r() * 100), ts + 5];
      const p = seek(w, ts);
      if (p.c >= w.chunks.length) w = windowOf([...windowEntries(w), e], base);
      else insertAt(w, p, e);
      all.push(e);
    }
    all.sort((a, b) => a[0] - b[0]);
    expect(windowEntries(w)).toEqual(all);
    expect(w.size).toBe(all.length);
    expect(Math.max(...w.chunks.map((c) => c.n))).toBeLessThanOrEqual(2 * CHUNK);
  });
});
