/**
 * The proof checks are written once (proofs.ts) and run two ways: with Node's synchronous SHA-256 (the
 * gateway, merkle.ts) and with WebCrypto's (the report verifier). Both give the same answer for good
 * proofs and for every altered one, on trees of 1 to 40 leaves.
 */
import { describe, expect, it } from 'vitest';
import {
  consistencyProof,
  type Hash,
  inclusionProof,
  leafHash,
  nodeHash,
  rangeProof,
  type SubtreeSource,
  treeRoot,
} from '../../gateway/src/ledger/merkle.ts';
import {
  checkConsistency,
  checkInclusion,
  checkRangeProof,
  type ProofCheck,
  runAsync,
  runSync,
} from '../../gateway/src/ledger/proofs.ts';
import { leafHashOf, nodeHashOf } from '../../gateway/src/ledger/webcrypto.ts';

const leaves = Array.from({ length: 40 }, (_, i) => leafHash(`entry ${i}`));
const source: SubtreeSource = {
  subtree: (level, index) => {
    const w = 2 ** level;
    const part = leaves.slice(index * w, (index + 1) * w);
    const mth = (l: Hash[]): Hash => {
      if (l.length === 1) return l[0]!;
      const k = l.length / 2;
      return nodeHash(mth(l.slice(0, k)), mth(l.slice(k)));
    };
    return mth(part);
  },
};
const flip = (h: Hash) => {
  const c = Buffer.from(h);
  c[0]! ^= 1;
  return c;
};
/** The answer of one check run both ways, which must agree. */
async function both(make: () => ProofCheck): Promise<boolean> {
  const sync = runSync(make(), nodeHash);
  expect(await runAsync(make(), nodeHashOf)).toBe(sync);
  return sync;
}

describe('proof checks, synchronous and WebCrypto', () => {
  it('hash leaves and nodes alike', async () => {
    expect(Buffer.from(await leafHashOf('entry 7')).equals(leaves[7]!)).toBe(true);
    expect(
      Buffer.from(await nodeHashOf(leaves[0]!, leaves[1]!)).equals(nodeHash(leaves[0]!, leaves[1]!)),
    ).toBe(true);
  });

  it('agree on inclusion proofs, good and altered', async () => {
    for (let n = 1; n <= 40; n += 3) {
      const root = treeRoot(source, n);
      for (let i = 0; i < n; i += 2) {
        const p = inclusionProof(source, i, n);
        expect(await both(() => checkInclusion(i, n, leaves[i]!, p, root))).toBe(true);
        expect(await both(() => checkInclusion(i, n, flip(leaves[i]!), p, root))).toBe(false);
        if (p.length)
          expect(await both(() => checkInclusion(i, n, leaves[i]!, [flip(p[0]!), ...p.slice(1)], root))).toBe(
            false,
          );
      }
    }
  });

  it('agree on consistency proofs, good and altered', async () => {
    for (let to = 1; to <= 40; to += 5)
      for (let from = 1; from <= to; from += 2) {
        const p = consistencyProof(source, from, to);
        const [a, b] = [treeRoot(source, from), treeRoot(source, to)];
        expect(await both(() => checkConsistency(from, to, a, b, p))).toBe(true);
        expect(await both(() => checkConsistency(from, to, a, flip(b), p))).toBe(false);
      }
  });

  it('agree on range proofs, good and altered', async () => {
    const ranges: Array<[number, number]> = [
      [2, 5],
      [9, 10],
      [17, 33],
    ];
    const covered = ranges.flatMap(([a, b]) => leaves.slice(a, b));
    const p = rangeProof(source, ranges, 40);
    const root = treeRoot(source, 40);
    expect(await both(() => checkRangeProof(ranges, 40, covered, p, root))).toBe(true);
    expect(
      await both(() => checkRangeProof(ranges, 40, [flip(covered[0]!), ...covered.slice(1)], p, root)),
    ).toBe(false);
    expect(await both(() => checkRangeProof(ranges, 40, covered, p.slice(1), root))).toBe(false);
    expect(await both(() => checkRangeProof([[5, 2]], 40, covered, p, root))).toBe(false);
  });
});
