import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  consistencyProof,
  EMPTY_ROOT,
  Frontier,
  type Hash,
  inclusionProof,
  leafHash,
  nodeHash,
  rangeProof,
  type SubtreeSource,
  treeRoot,
  verifyConsistency,
  verifyInclusion,
  verifyRangeProof,
} from '../../gateway/src/ledger/merkle.ts';

// The inputs and tree heads of the RFC 6962 reference tests (certificate-transparency, merkle_tree_test).
const INPUTS = [
  '',
  '00',
  '10',
  '2021',
  '3031',
  '40414243',
  '5051525354555657',
  '606162636465666768696a6b6c6d6e6f',
];
const ROOTS = [
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
];

/** The RFC's recursive definition, straight from the text: the reference the fast code is held to. */
function mth(leaves: Hash[]): Hash {
  if (leaves.length === 0) return EMPTY_ROOT;
  if (leaves.length === 1) return leaves[0]!;
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return nodeHash(mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}

/** Complete subtrees computed from the leaves (what the store keeps). */
function source(leaves: Hash[]): SubtreeSource & { reads: number } {
  const s = {
    reads: 0,
    subtree(level: number, index: number): Hash {
      s.reads++;
      const w = 2 ** level;
      const part = leaves.slice(index * w, (index + 1) * w);
      if (part.length !== w) throw new Error(`subtree ${level}/${index} is not complete`);
      return mth(part);
    },
  };
  return s;
}

const leavesOf = (n: number) => Array.from({ length: n }, (_, i) => leafHash(`entry ${i}`));
const flip = (h: Hash) => {
  const c = Buffer.from(h);
  c[0]! ^= 1;
  return c;
};

describe('Merkle tree hashing (RFC 6962 / 9162)', () => {
  it('gives the reference tree heads', () => {
    const leaves = INPUTS.map((x) => leafHash(Buffer.from(x, 'hex')));
    expect(EMPTY_ROOT.toString('hex')).toBe(createHash('sha256').digest('hex'));
    for (let n = 1; n <= 8; n++) {
      expect(mth(leaves.slice(0, n)).toString('hex'), `size ${n}`).toBe(ROOTS[n - 1]);
      expect(treeRoot(source(leaves), n).toString('hex')).toBe(ROOTS[n - 1]);
    }
  });

  it('the frontier gives every prefix root and reports each completed subtree once', () => {
    const leaves = leavesOf(70);
    const f = new Frontier();
    const done = new Set<string>();
    for (let i = 0; i < leaves.length; i++) {
      f.append(leaves[i]!, (level, index, h) => {
        const key = `${level}/${index}`;
        expect(done.has(key)).toBe(false);
        done.add(key);
        expect(h.equals(mth(leaves.slice(index * 2 ** level, (index + 1) * 2 ** level)))).toBe(true);
      });
      expect(f.root().equals(mth(leaves.slice(0, i + 1))), `size ${i + 1}`).toBe(true);
    }
    const again = Frontier.of(source(leaves), 70);
    expect(again.root().equals(f.root())).toBe(true);
    expect(again.edge().map((e) => e.level)).toEqual([6, 2, 1]);
  });

  it('inclusion proofs verify for every leaf of every size up to 33, and fail when altered', () => {
    const leaves = leavesOf(33);
    for (let n = 1; n <= 33; n++) {
      const root = mth(leaves.slice(0, n));
      for (let i = 0; i < n; i++) {
        const p = inclusionProof(source(leaves), i, n);
        expect(verifyInclusion(i, n, leaves[i]!, p, root), `${i} in ${n}`).toBe(true);
        expect(verifyInclusion(i, n, flip(leaves[i]!), p, root)).toBe(false);
        if (p.length > 0)
          expect(verifyInclusion(i, n, leaves[i]!, [...p.slice(1), p[0]!].map(flip), root)).toBe(false);
        if (n > 1)
          expect(
            verifyInclusion((i + 1) % n, n, leaves[i]!, p, root) && leaves[i] !== leaves[(i + 1) % n],
          ).toBe(false);
        if (n < 33) expect(verifyInclusion(i, n + 1, leaves[i]!, p, mth(leaves.slice(0, n + 1)))).toBe(false);
      }
    }
  });

  it('consistency proofs verify between every pair of sizes up to 33, and fail for a rewritten prefix', () => {
    const leaves = leavesOf(33);
    const rewritten = [...leaves];
    rewritten[3] = leafHash('rewritten');
    for (let m = 1; m <= 33; m++)
      for (let n = m; n <= 33; n++) {
        const p = consistencyProof(source(leaves), m, n);
        const a = mth(leaves.slice(0, m));
        const b = mth(leaves.slice(0, n));
        expect(verifyConsistency(m, n, a, b, p), `${m} -> ${n}`).toBe(true);
        if (m < n) {
          expect(verifyConsistency(m, n, flip(a), b, p)).toBe(false);
          expect(verifyConsistency(m, n, a, flip(b), p)).toBe(false);
        }
        if (m > 3 && m < n) {
          // A log that rewrote an old entry cannot prove itself consistent with an earlier checkpoint.
          const q = consistencyProof(source(rewritten), m, n);
          expect(verifyConsistency(m, n, a, mth(rewritten.slice(0, n)), q)).toBe(false);
        }
      }
  });

  it('proof generation reads O(log n) subtrees', () => {
    const n = 2 ** 20 + 12345;
    const cheap: SubtreeSource & { reads: number } = {
      reads: 0,
      subtree(level, index) {
        this.reads++;
        return leafHash(`${level}/${index}`);
      },
    };
    inclusionProof(cheap, 777_777, n);
    expect(cheap.reads).toBeLessThanOrEqual(2 * 21);
    cheap.reads = 0;
    consistencyProof(cheap, 999_999, n);
    expect(cheap.reads).toBeLessThanOrEqual(3 * 21);
  });

  it('range proofs prove many contiguous leaves with few hashes', () => {
    const leaves = leavesOf(100);
    const root = mth(leaves);
    const ranges: Array<[number, number]> = [
      [3, 40],
      [41, 42],
      [70, 100],
    ];
    const covered = ranges.flatMap(([a, b]) => leaves.slice(a, b));
    const p = rangeProof(source(leaves), ranges, 100);
    expect(p.length).toBeLessThan(20);
    expect(verifyRangeProof(ranges, 100, covered, p, root)).toBe(true);
    const forged = [...covered];
    forged[10] = leafHash('forged');
    expect(verifyRangeProof(ranges, 100, forged, p, root)).toBe(false);
    expect(verifyRangeProof(ranges, 100, covered.slice(1), p, root)).toBe(false);
    expect(verifyRangeProof(ranges, 100, covered, p.slice(1), root)).toBe(false);
    expect(verifyRangeProof([[3, 40]], 100, covered.slice(0, 37), p, root)).toBe(false);
    for (let n = 1; n <= 20; n++)
      for (let a = 0; a < n; a++)
        for (let b = a + 1; b <= n; b++) {
          const q = rangeProof(source(leaves), [[a, b]], n);
          expect(
            verifyRangeProof([[a, b]], n, leaves.slice(a, b), q, mth(leaves.slice(0, n))),
            `${a}-${b} of ${n}`,
          ).toBe(true);
        }
  });
});
