/**
 * The sequence numbers one device sent recently, with their source times: pairs in one array of doubles
 * used as a ring (oldest overwritten first), grown by doubling up to a capacity, so a device that sends
 * now and then costs a few dozen bytes and ten thousand of them a few megabytes.
 *
 * A plain array, not a Float64Array: V8 keeps an array of numbers as unboxed doubles inside the heap,
 * while a typed array adds its ArrayBuffer, a backing store outside the heap and their bookkeeping, about
 * 300 bytes a device (a heap snapshot of the 10,000-device fleet: 6.5 MB for the rings, 3 MB of it that).
 */
export class SeqRing {
  /** [seq, ts] pairs; a forgotten seq is NaN. */
  private buf: number[];
  /** Index (in pairs) of the oldest entry, and how many there are. */
  private head = 0;
  private size = 0;
  /** At least every seq held (it may stay above once the largest left): a larger seq is new without a scan. */
  private maxSeq = Number.NEGATIVE_INFINITY;
  /** The newest source time ever added (it stays when that entry is pruned or forgotten). */
  private newest = Number.NEGATIVE_INFINITY;
  /** The seq sent at that newest source time. */
  private newestSeqValue = Number.NaN;

  constructor(
    private readonly capacity: number,
    initial = 8,
  ) {
    this.buf = doubles(2 * Math.min(initial, capacity));
  }

  get length(): number {
    return this.size;
  }

  /** The newest source time ever added; -Infinity before the first. */
  get newestTs(): number {
    return this.newest;
  }

  /** The seq sent at the newest source time; NaN before the first. */
  get newestSeq(): number {
    return this.newestSeqValue;
  }

  /** Forgets every seq (the device started counting again). */
  clear(): void {
    this.head = 0;
    this.size = 0;
    this.maxSeq = Number.NEGATIVE_INFINITY;
  }

  /** Whether `seq` was sent at a source time within `windowMs` of `ts`. */
  has(seq: number, ts: number, windowMs: number): boolean {
    // A device's seqs mostly rise: the usual new reading is found new at once.
    if (seq > this.maxSeq) return false;
    const cap = this.buf.length / 2;
    for (let k = 0; k < this.size; k++) {
      const i = ((this.head + k) % cap) * 2;
      if (this.buf[i] === seq && Math.abs(this.buf[i + 1]! - ts) <= windowMs) return true;
    }
    return false;
  }

  /** Remembers `seq` at `ts`, dropping the oldest entry when full. */
  add(seq: number, ts: number): void {
    let cap = this.buf.length / 2;
    if (this.size === cap && cap < this.capacity) {
      const next = doubles(2 * Math.min(cap * 2, this.capacity));
      for (let k = 0; k < this.size; k++) {
        const i = ((this.head + k) % cap) * 2;
        next[2 * k] = this.buf[i]!;
        next[2 * k + 1] = this.buf[i + 1]!;
      }
      this.buf = next;
      this.head = 0;
      cap = next.length / 2;
    }
    if (this.size === cap) {
      this.head = (this.head + 1) % cap;
      this.size--;
    }
    const i = ((this.head + this.size) % cap) * 2;
    this.buf[i] = seq;
    this.buf[i + 1] = ts;
    this.size++;
    if (seq > this.maxSeq) this.maxSeq = seq;
    if (ts > this.newest) {
      this.newest = ts;
      this.newestSeqValue = seq;
    }
  }

  /** Drops the oldest entries while their source time is before `ts`: they can no longer match. */
  pruneBefore(ts: number): void {
    const cap = this.buf.length / 2;
    while (this.size > 0 && this.buf[this.head * 2 + 1]! < ts) {
      this.head = (this.head + 1) % cap;
      this.size--;
    }
  }

  /** Forgets `seq` (its reading was not stored after all). */
  forget(seq: number): void {
    const cap = this.buf.length / 2;
    for (let k = 0; k < this.size; k++) {
      const i = ((this.head + k) % cap) * 2;
      if (this.buf[i] === seq) this.buf[i] = Number.NaN;
    }
  }
}

/** An array of `n` doubles (NaN), so V8 stores it unboxed from the start. */
function doubles(n: number): number[] {
  return new Array<number>(n).fill(Number.NaN);
}
