import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  EMPTY_ROOT,
  type Hash,
  leafHash,
  nodeHash,
  verifyConsistency,
  verifyInclusion,
  verifyRangeProof,
} from '../../gateway/src/ledger/merkle.ts';
import { type Db, openDatabase } from '../../gateway/src/store/db.ts';
import { EvidenceLog, STORED_LEVEL } from '../../gateway/src/store/evidenceLog.ts';

function mth(leaves: Hash[]): Hash {
  if (leaves.length === 0) return EMPTY_ROOT;
  if (leaves.length === 1) return leaves[0]!;
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return nodeHash(mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}

const entry = (i: number) => ({
  kind: 'change' as const,
  ref: `r${i}`,
  body: `{"n":${i}}`,
  keepBody: true,
  at: i,
});

describe('the evidence log in the store', () => {
  let dir: string;
  let db: Db;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'log-'));
    db = openDatabase(dir);
  });
  afterEach(() => {
    if (db.open) db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('appends in the caller transaction, gives every prefix root and proofs that verify', () => {
    const log = new EvidenceLog(db);
    const leaves: Hash[] = [];
    const N = 700;
    for (let i = 0; i < N; i += 50) {
      const batch = Array.from({ length: 50 }, (_, k) => entry(i + k));
      const idx = db.transaction(() => log.append(batch))();
      expect(idx[0]).toBe(i);
      for (const e of batch) leaves.push(leafHash(e.body));
      expect(log.root().equals(mth(leaves))).toBe(true);
    }
    // Stored subtrees: only levels >= 8.
    const levels = db.prepare('SELECT DISTINCT level FROM log_nodes ORDER BY level').all() as Array<{
      level: number;
    }>;
    expect(levels.map((l) => l.level)).toEqual([STORED_LEVEL, STORED_LEVEL + 1]);
    for (const size of [1, 2, 255, 256, 257, 511, 512, 699, 700])
      expect(log.rootAt(size).equals(mth(leaves.slice(0, size))), `root at ${size}`).toBe(true);
    for (const [i, size] of [
      [0, 700],
      [255, 700],
      [256, 700],
      [699, 700],
      [300, 513],
    ] as const)
      expect(verifyInclusion(i, size, leaves[i]!, log.inclusion(i, size), mth(leaves.slice(0, size)))).toBe(
        true,
      );
    for (const [m, n] of [
      [1, 700],
      [256, 700],
      [300, 513],
      [699, 700],
    ] as const)
      expect(
        verifyConsistency(m, n, mth(leaves.slice(0, m)), mth(leaves.slice(0, n)), log.consistency(m, n)),
      ).toBe(true);
    const ranges: Array<[number, number]> = [
      [10, 300],
      [600, 650],
    ];
    const proof = log.range(ranges, 700);
    expect(
      verifyRangeProof(ranges, 700, [...leaves.slice(10, 300), ...leaves.slice(600, 650)], proof, log.root()),
    ).toBe(true);
    expect(log.entry(5)).toMatchObject({ idx: 5, kind: 'change', ref: 'r5', body: '{"n":5}' });
  });

  it('reopens with the same head, and recovers from a rolled-back transaction', () => {
    const log = new EvidenceLog(db);
    db.transaction(() => log.append(Array.from({ length: 300 }, (_, i) => entry(i))))();
    const head = log.root();
    expect(() =>
      db.transaction(() => {
        log.append([entry(300), entry(301)]);
        throw new Error('the record failed');
      })(),
    ).toThrow('the record failed');
    expect(log.size()).toBe(302);
    // The next append sees the store is behind and rebuilds the edge first.
    db.transaction(() => log.append([entry(1000)]))();
    expect(log.size()).toBe(301);
    expect(log.rootAt(300).equals(head)).toBe(true);
    db.close();
    db = openDatabase(dir);
    const again = new EvidenceLog(db);
    expect(again.size()).toBe(301);
    expect(again.root().equals(log.root())).toBe(true);
  });

  it('refuses sizes the log does not have', () => {
    const log = new EvidenceLog(db);
    db.transaction(() => log.append([entry(0), entry(1)]))();
    expect(() => log.rootAt(3)).toThrow(RangeError);
    expect(() => log.inclusion(0, 3)).toThrow(RangeError);
  });
});
