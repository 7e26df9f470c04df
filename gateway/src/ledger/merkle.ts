/**
 * Merkle tree hashing as RFC 6962 / RFC 9162 §2.1 define it, pure: leaf and node hashes with their
 * domain-separation prefixes, the tree head of a size, inclusion and consistency proofs (generation and
 * verification), and range proofs that prove many contiguous leaves at once.
 *
 * Generation reads complete subtrees through a `SubtreeSource` (the store keeps them), so a proof costs
 * O(log n) subtree reads whatever the size of the log; verification needs nothing but the proof.
 */
import { createHash, hash } from 'node:crypto';

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
export function nodeHash(left: Hash, right: Hash): Hash {
  left.copy(pair, 1);
  right.copy(pair, 33);
  return hash('sha256', pair, 'buffer');
}

/** The root of the empty tree: SHA-256 of the empty string. */
export const EMPTY_ROOT: Hash = createHash('sha256').digest();

/** The largest power of two smaller than n (n > 1): where RFC 9162 splits a tree of n leaves. */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * Reads the hash of a complete subtree: the 2^level leaves starting at `index * 2^level`. Every call
 * the algorithms below make names a subtree that is complete in the tree being proved.
 */
export interface SubtreeSource {
  subtree(level: number, index: number): Hash;
}

const isPow2 = (n: number) => n > 0 && (n & (n - 1)) === 0;
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
  if (!(index >= 0 && index < size)) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && r.equals(root);
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
  if (from < 0 || from > to) return false;
  if (from === to) return proof.length === 0 && fromRoot.equals(toRoot);
  if (from === 0) return proof.length === 0;
  const path = isPow2(from) ? [fromRoot, ...proof] : [...proof];
  if (path.length === 0) return false;
  let fn = from - 1;
  let sn = to - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = path[0]!;
  let sr = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && fr.equals(fromRoot) && sr.equals(toRoot);
}

/** Leaf ranges [start, end) in increasing order, not overlapping: what a range proof covers. */
export type LeafRanges = ReadonlyArray<readonly [start: number, end: number]>;

function overlaps(ranges: LeafRanges, lo: number, hi: number): 'all' | 'none' | 'some' {
  // The first range ending after lo (the ranges are sorted and apart): a binary search, not a scan, so a
  // proof of many ranges costs O(log r) per node it visits.
  let l = 0;
  let h = ranges.length;
  while (l < h) {
    const m = (l + h) >>> 1;
    if (ranges[m]![1] <= lo) l = m + 1;
    else h = m;
  }
  const r = ranges[l];
  if (!r || r[0] >= hi) return 'none';
  return r[0] <= lo && r[1] >= hi ? 'all' : 'some';
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
  try {
    checkRanges(ranges, size);
  } catch (e) {
    if (e instanceof RangeError) return false;
    throw e;
  }
  const total = ranges.reduce((s, [a, b]) => s + (b - a), 0);
  if (leaves.length !== total || size === 0) return false;
  // Position of each range's first leaf in `leaves`.
  const offsets: number[] = [];
  let off = 0;
  for (const [a, b] of ranges) {
    offsets.push(off);
    off += b - a;
  }
  const leafAt = (i: number): Hash | undefined => {
    for (let r = 0; r < ranges.length; r++) {
      const [a, b] = ranges[r]!;
      if (i >= a && i < b) return leaves[offsets[r]! + i - a];
    }
    return undefined;
  };
  let next = 0;
  let bad = false;
  const covered = (lo: number, hi: number): Hash => {
    if (hi - lo === 1) return leafAt(lo)!;
    const k = splitPoint(hi - lo);
    return nodeHash(covered(lo, lo + k), covered(lo + k, hi));
  };
  const walk = (lo: number, hi: number): Hash => {
    const o = overlaps(ranges, lo, hi);
    if (o === 'all') return covered(lo, hi);
    if (o === 'none') {
      const h = proof[next++];
      if (!h) {
        bad = true;
        return EMPTY_ROOT;
      }
      return h;
    }
    const k = splitPoint(hi - lo);
    return nodeHash(walk(lo, lo + k), walk(lo + k, hi));
  };
  const r = walk(0, size);
  return !bad && next === proof.length && r.equals(root);
}

function checkRanges(ranges: LeafRanges, size: number): void {
  let last = 0;
  for (const [a, b] of ranges) {
    if (!(Number.isInteger(a) && Number.isInteger(b) && a >= last && b > a && b <= size))
      throw new RangeError(`bad leaf range [${a}, ${b}) in a tree of size ${size}`);
    last = b;
  }
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
