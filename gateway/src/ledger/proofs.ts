/**
 * Checking Merkle proofs as RFC 6962 / RFC 9162 §2.1 define them, written once for two kinds of hashing:
 * the gateway's (Node's synchronous SHA-256, `merkle.ts`) and the report verifier's (WebCrypto, which is
 * asynchronous, in Node and in a browser alike). Each check is a generator: it yields the two children
 * of every interior node it needs, is sent back that node's hash (SHA-256 of 0x01 || left || right), and
 * returns whether the proof holds. `runSync` and `runAsync` drive it with a hash function of either kind.
 *
 * So the algorithms have one copy, the gateway keeps its synchronous API (and pays no promise per node),
 * and this file needs no crypto at all. Also here: the shape of the tree (where it splits, which leaf
 * ranges a subtree meets), which the proof generation in `merkle.ts` shares. Pure, no Node API.
 */
import { bytesEqual } from './bytes.ts';

/** The children of the interior node whose hash a check needs next. */
export type NodeRequest = readonly [left: Uint8Array, right: Uint8Array];
/** A proof check: yields the nodes it needs hashed, is sent their hashes, returns whether the proof holds. */
export type ProofCheck = Generator<NodeRequest, boolean, Uint8Array>;
/** A part of a check that computes one subtree's hash. */
type Subtree = Generator<NodeRequest, Uint8Array, Uint8Array>;

/** Runs a check with a synchronous node hash. */
export function runSync(
  check: ProofCheck,
  node: (left: Uint8Array, right: Uint8Array) => Uint8Array,
): boolean {
  let step = check.next();
  while (!step.done) step = check.next(node(step.value[0], step.value[1]));
  return step.value;
}

/** Runs a check with an asynchronous node hash (WebCrypto's). */
export async function runAsync(
  check: ProofCheck,
  node: (left: Uint8Array, right: Uint8Array) => Promise<Uint8Array>,
): Promise<boolean> {
  let step = check.next();
  while (!step.done) step = check.next(await node(step.value[0], step.value[1]));
  return step.value;
}

/** The largest power of two smaller than n (n > 1): where RFC 9162 splits a tree of n leaves. */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

export const isPow2 = (n: number): boolean => n > 0 && (n & (n - 1)) === 0;

/** RFC 9162 §2.1.3.2: whether `proof` proves leaf `index` with hash `leaf` in the tree (size, root). */
export function* checkInclusion(
  index: number,
  size: number,
  leaf: Uint8Array,
  proof: Uint8Array[],
  root: Uint8Array,
): ProofCheck {
  if (!(index >= 0 && index < size)) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = yield [p, r];
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = yield [r, p];
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && bytesEqual(r, root);
}

/** RFC 9162 §2.1.4.2: whether `proof` shows (from, fromRoot) is a prefix of (to, toRoot). */
export function* checkConsistency(
  from: number,
  to: number,
  fromRoot: Uint8Array,
  toRoot: Uint8Array,
  proof: Uint8Array[],
): ProofCheck {
  if (from < 0 || from > to) return false;
  if (from === to) return proof.length === 0 && bytesEqual(fromRoot, toRoot);
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
      fr = yield [c, fr];
      sr = yield [c, sr];
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      sr = yield [sr, c];
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && bytesEqual(fr, fromRoot) && bytesEqual(sr, toRoot);
}

/** Leaf ranges [start, end) in increasing order, not overlapping: what a range proof covers. */
export type LeafRanges = ReadonlyArray<readonly [start: number, end: number]>;

/** Whether the leaves [lo, hi) are all, none or some of those the ranges cover. */
export function overlaps(ranges: LeafRanges, lo: number, hi: number): 'all' | 'none' | 'some' {
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

/** Throws a RangeError unless the ranges are sorted, apart, non-empty and within a tree of `size`. */
export function checkRanges(ranges: LeafRanges, size: number): void {
  let last = 0;
  for (const [a, b] of ranges) {
    if (!(Number.isInteger(a) && Number.isInteger(b) && a >= last && b > a && b <= size))
      throw new RangeError(`bad leaf range [${a}, ${b}) in a tree of size ${size}`);
    last = b;
  }
}

/**
 * Whether leaves (their hashes, range by range, in order) and a range proof (the hashes of the maximal
 * subtrees that hold none of them, in the order RFC 9162's recursion visits them) give `root` for a tree
 * of `size`.
 */
export function* checkRangeProof(
  ranges: LeafRanges,
  size: number,
  leaves: Uint8Array[],
  proof: Uint8Array[],
  root: Uint8Array,
): ProofCheck {
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
  const leafAt = (i: number): Uint8Array => {
    for (let r = 0; r < ranges.length; r++) {
      const [a, b] = ranges[r]!;
      if (i >= a && i < b) return leaves[offsets[r]! + i - a]!;
    }
    throw new RangeError(`leaf ${i} is in no range`);
  };
  let next = 0;
  let bad = false;
  function* covered(lo: number, hi: number): Subtree {
    if (hi - lo === 1) return leafAt(lo);
    const k = splitPoint(hi - lo);
    const left = yield* covered(lo, lo + k);
    const right = yield* covered(lo + k, hi);
    return yield [left, right];
  }
  function* walk(lo: number, hi: number): Subtree {
    const o = overlaps(ranges, lo, hi);
    if (o === 'all') return yield* covered(lo, hi);
    if (o === 'none') {
      const h = proof[next++];
      if (!h) bad = true;
      return h ?? new Uint8Array(32);
    }
    const k = splitPoint(hi - lo);
    const left = yield* walk(lo, lo + k);
    const right = yield* walk(lo + k, hi);
    return yield [left, right];
  }
  const r = yield* walk(0, size);
  return !bad && next === proof.length && bytesEqual(r, root);
}
