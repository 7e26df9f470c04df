/**
 * Merkle tree hashing as RFC 6962 / RFC 9162 §2.1 define it, pure: leaf and node hashes with their
 * domain-separation prefixes, the tree head of a size, inclusion and consistency proofs (generation and
 * verification), and range proofs that prove many contiguous leaves at once.
 *
 * Generation reads complete subtrees through a `SubtreeSource` (the store keeps them), so a proof costs
 * O(log n) subtree reads whatever the size of the log; verification needs nothing but the proof. The
 * verification algorithms are `proofs.ts`'s, run here with Node's synchronous SHA-256 (the report
 * verifier runs the same ones with WebCrypto's).
 */
import { createHash, hash } from 'node:crypto';
import {
  checkConsistency,
  checkInclusion,
  checkRangeProof,
  checkRanges,
  isPow2,
  type LeafRanges,
  overlaps,
  runSync,
  splitPoint,
} from './proofs.ts';

export { type LeafRanges, splitPoint };

export type Hash = Buffer;

const LEAF = Buffer.from([0]);

/**
 * SHA-256(0x00 || data): the hash of one log entry. A string is hashed as UTF-8, where U+0000 is the one
 * byte 0x00, so the prefix costs no copy (one-shot hashing is several times cheaper than a hash object).
 */
export function leafHash(data: Buffer | string): Hash {
  if (typeof data === 'string') return hash('sha256', `\0${data}`, 'buffer');
  return createHash('sha256').update(LEAF).update(data).digest();
}

/** One buffer for the 65 bytes a node hashes: the code is synchronous, so it is never shared. */
const pair = Buffer.alloc(65, 1);

/** SHA-256(0x01 || left || right): an interior node. */
export function nodeHash(left: Uint8Array, right: Uint8Array): Hash {
  pair.set(left, 1);
  pair.set(right, 33);
  return hash('sha256', pair, 'buffer');
}

/** The root of the empty tree: SHA-256 of the empty string. */
export const EMPTY_ROOT: Hash = createHash('sha256').digest();

/**
 * Reads the hash of a complete subtree: the 2^level leaves starting at `index * 2^level`. Every call
 * the algorithms below make names a subtree that is complete in the tree being proved.
 */
export interface SubtreeSource {
  subtree(level: number, index: number): Hash;
}

const log2 = (n: number) => Math.round(Math.log2(n));

/** MTH(D[lo:hi]) for a range that RFC 9162's recursion reaches (lo aligned to the range's split). */
export function rangeRoot(src: SubtreeSource, lo: number, hi: number): Hash {
  const n = hi - lo;
  if (n === 0) return EMPTY_ROOT;
  if (isPow2(n) && lo % n === 0) return src.subtree(log2(n), lo / n);
  const k = splitPoint(n);
  return nodeHash(rangeRoot(src, lo, lo + k), rangeRoot(src, lo + k, hi));
}

/** The tree head of the first `size` leaves. */
export function treeRoot(src: SubtreeSource, size: number): Hash {
  return rangeRoot(src, 0, size);
}

/** PATH(m, D[lo:hi]) of RFC 9162 §2.1.3.1: the audit path of leaf `m`, leaf-side first. */
export function inclusionProof(src: SubtreeSource, index: number, size: number): Hash[] {
  if (!(index >= 0 && index < size)) throw new RangeError(`leaf ${index} is not in a tree of size ${size}`);
  const out: Hash[] = [];
  const walk = (m: number, lo: number, hi: number): void => {
    if (hi - lo <= 1) return;
    const k = splitPoint(hi - lo);
    if (m < k) {
      walk(m, lo, lo + k);
      out.push(rangeRoot(src, lo + k, hi));
    } else {
      walk(m - k, lo + k, hi);
      out.push(rangeRoot(src, lo, lo + k));
    }
  };
  walk(index, 0, size);
  return out;
}

/** RFC 9162 §2.1.3.2: whether `proof` proves leaf `index` with hash `leaf` in the tree (size, root). */
export function verifyInclusion(index: number, size: number, leaf: Hash, proof: Hash[], root: Hash): boolean {
  return runSync(checkInclusion(index, size, leaf, proof, root), nodeHash);
}

/** PROOF(m, D[n]) of RFC 9162 §2.1.4.1: proves the tree of size `from` is a prefix of the one of size `to`. */
export function consistencyProof(src: SubtreeSource, from: number, to: number): Hash[] {
  if (!(from >= 0 && from <= to)) throw new RangeError(`no consistency proof from ${from} to ${to}`);
  if (from === 0 || from === to) return [];
  const out: Hash[] = [];
  const sub = (m: number, lo: number, hi: number, whole: boolean): void => {
    const n = hi - lo;
    if (m === n) {
      if (!whole) out.push(rangeRoot(src, lo, hi));
      return;
    }
    const k = splitPoint(n);
    if (m <= k) {
      sub(m, lo, lo + k, whole);
      out.push(rangeRoot(src, lo + k, hi));
    } else {
      sub(m - k, lo + k, hi, false);
      out.push(rangeRoot(src, lo, lo + k));
    }
  };
  sub(from, 0, to, true);
  return out;
}

/** RFC 9162 §2.1.4.2: whether `proof` shows (from, fromRoot) is a prefix of (to, toRoot). */
export function verifyConsistency(
  from: number,
  to: number,
  fromRoot: Hash,
  toRoot: Hash,
  proof: Hash[],
): boolean {
  return runSync(checkConsistency(from, to, fromRoot, toRoot, proof), nodeHash);
}

/**
 * A range proof: the hashes of the maximal subtrees of the tree of `size` that hold none of the given
 * leaves, in the order the recursion of RFC 9162 visits them. With the leaves themselves they give the
 * root: one proof for many contiguous leaves costs O(log n) hashes per range, not per leaf.
 */
export function rangeProof(src: SubtreeSource, ranges: LeafRanges, size: number): Hash[] {
  return [...rangeProofSteps(src, ranges, size)];
}

/** The hashes of `rangeProof` one at a time, so that a caller can let the event loop go between them. */
export function* rangeProofSteps(src: SubtreeSource, ranges: LeafRanges, size: number): Generator<Hash> {
  checkRanges(ranges, size);
  // The recursion's subtrees still to visit, leftmost on top.
  const todo: Array<[number, number]> = [[0, size]];
  while (todo.length) {
    const [lo, hi] = todo.pop()!;
    const o = overlaps(ranges, lo, hi);
    if (o === 'all') continue;
    if (o === 'none') {
      yield rangeRoot(src, lo, hi);
      continue;
    }
    const k = splitPoint(hi - lo);
    todo.push([lo + k, hi], [lo, lo + k]);
  }
}

/** Whether leaves (their hashes, range by range, in order) and `proof` give `root` for a tree of `size`. */
export function verifyRangeProof(
  ranges: LeafRanges,
  size: number,
  leaves: Hash[],
  proof: Hash[],
  root: Hash,
): boolean {
  return runSync(checkRangeProof(ranges, size, leaves, proof, root), nodeHash);
}

/**
 * The right edge of a growing tree: the roots of its complete subtrees, largest first. Appending a leaf
 * is O(1) amortised; `root()` is O(log n). `completed` reports each subtree the append finished, so the
 * store can keep the ones proofs will need.
 */
export class Frontier {
  private readonly stack: Array<{ level: number; hash: Hash }>;
  size: number;

  constructor(size = 0, stack: Array<{ level: number; hash: Hash }> = []) {
    this.size = size;
    this.stack = stack;
  }

  append(leaf: Hash, completed?: (level: number, index: number, hash: Hash) => void): void {
    let level = 0;
    let h = leaf;
    let index = this.size;
    completed?.(0, index, h);
    while (this.stack.length > 0 && this.stack[this.stack.length - 1]!.level === level) {
      h = nodeHash(this.stack.pop()!.hash, h);
      level++;
      index = Math.floor(index / 2);
      completed?.(level, index, h);
    }
    this.stack.push({ level, hash: h });
    this.size++;
  }

  root(): Hash {
    if (this.stack.length === 0) return EMPTY_ROOT;
    let r = this.stack[this.stack.length - 1]!.hash;
    for (let i = this.stack.length - 2; i >= 0; i--) r = nodeHash(this.stack[i]!.hash, r);
    return r;
  }

  /** The complete subtrees of the right edge, largest first (for persisting or copying). */
  edge(): Array<{ level: number; hash: Hash }> {
    return this.stack.map((s) => ({ ...s }));
  }

  /** The frontier of a tree of `size` leaves, read from complete subtrees. */
  static of(src: SubtreeSource, size: number): Frontier {
    const stack: Array<{ level: number; hash: Hash }> = [];
    let start = 0;
    for (let level = 52; level >= 0; level--) {
      const width = 2 ** level;
      if (size - start >= width) {
        stack.push({ level, hash: src.subtree(level, start / width) });
        start += width;
      }
    }
    return new Frontier(size, stack);
  }
}
