/** One line cut from a serial byte stream. */
export interface SplitLine {
  /** The line's bytes without the `\n` and without a trailing `\r`; a copy, never a view of the read buffer. */
  bytes: Buffer;
  /**
   * True when the line was longer than `maxLineBytes`: `bytes` then holds only its first
   * `maxLineBytes + 1` bytes (so a size check downstream sees it is over the limit) and the rest of
   * the line, up to the next `\n`, was discarded.
   */
  truncated: boolean;
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Splits a byte stream into lines on `\n`, tolerating `\r\n` (a trailing `\r` is stripped) and skipping
 * empty lines. Works on bytes, not text, so noise that is not valid UTF-8 passes through unchanged for
 * the decoder to reject.
 *
 * Memory is bounded: at most `maxLineBytes + 2` bytes of an unfinished line are held. A line that
 * grows past that is emitted at once as a truncated line (its first `maxLineBytes + 1` bytes) and
 * everything up to the next `\n` is dropped.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private pending = 0;
  private discarding = false;

  constructor(readonly maxLineBytes: number) {
    if (!Number.isInteger(maxLineBytes) || maxLineBytes < 1)
      throw new RangeError(`maxLineBytes must be a positive integer, got ${maxLineBytes}`);
  }

  /** Bytes of an unfinished line currently held. */
  get pendingBytes(): number {
    return this.pending;
  }

  /** Whether the splitter is dropping the rest of an overlong line. */
  get isDiscarding(): boolean {
    return this.discarding;
  }

  /** Feeds a chunk; returns the lines it completed, in order. */
  push(chunk: Buffer): SplitLine[] {
    const out: SplitLine[] = [];
    let pos = 0;
    while (pos < chunk.length) {
      const nl = chunk.indexOf(LF, pos);
      if (this.discarding) {
        if (nl < 0) return out;
        this.discarding = false;
        pos = nl + 1;
        continue;
      }
      if (nl < 0) {
        this.append(chunk.subarray(pos));
        // One byte of slack: a line of exactly maxLineBytes may still be followed by `\r`.
        if (this.pending > this.maxLineBytes + 1) {
          out.push({ bytes: this.take(this.maxLineBytes + 1), truncated: true });
          this.discarding = true;
        }
        return out;
      }
      this.append(chunk.subarray(pos, nl));
      pos = nl + 1;
      const line = this.finish();
      if (line) out.push(line);
    }
    return out;
  }

  /**
   * Returns the unfinished line, if any, and clears the state: used when the stream ends (the port
   * was lost) so that a last line without its `\n` is still handed on rather than silently lost.
   */
  flush(): SplitLine | undefined {
    const wasDiscarding = this.discarding;
    this.discarding = false;
    if (wasDiscarding) {
      this.clear();
      return undefined;
    }
    return this.finish();
  }

  /** Forgets any unfinished line. */
  reset(): void {
    this.clear();
    this.discarding = false;
  }

  private append(b: Buffer): void {
    if (b.length === 0) return;
    this.parts.push(b);
    this.pending += b.length;
  }

  private clear(): void {
    this.parts = [];
    this.pending = 0;
  }

  /** Copies the first `n` bytes of the unfinished line (all of it when shorter) and clears it. */
  private take(n: number): Buffer {
    const all = Buffer.concat(this.parts, this.pending);
    this.clear();
    return Buffer.from(all.subarray(0, Math.min(n, all.length)));
  }

  private finish(): SplitLine | undefined {
    if (this.pending === 0) return undefined;
    let bytes = Buffer.concat(this.parts, this.pending);
    this.clear();
    if (bytes[bytes.length - 1] === CR) bytes = bytes.subarray(0, bytes.length - 1);
    if (bytes.length === 0) return undefined;
    if (bytes.length > this.maxLineBytes)
      return { bytes: Buffer.from(bytes.subarray(0, this.maxLineBytes + 1)), truncated: true };
    return { bytes, truncated: false };
  }
}
