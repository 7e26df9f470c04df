import { describe, expect, it } from 'vitest';
import { LineSplitter, type SplitLine } from '../../../gateway/src/ingest/serial/lineSplitter.ts';

const text = (lines: SplitLine[]) => lines.map((l) => l.bytes.toString('latin1'));

function feed(s: LineSplitter, ...chunks: Array<string | Buffer>): SplitLine[] {
  return chunks.flatMap((c) => s.push(typeof c === 'string' ? Buffer.from(c, 'latin1') : c));
}

describe('LineSplitter', () => {
  it('splits on \\n, strips a trailing \\r and skips empty lines', () => {
    const s = new LineSplitter(100);
    expect(text(feed(s, 'a\r\nb\n\r\n\n\nc\r\n'))).toEqual(['a', 'b', 'c']);
    expect(s.pendingBytes).toBe(0);
  });

  it('joins a line split across chunks, even between \\r and \\n', () => {
    const s = new LineSplitter(100);
    expect(text(feed(s, '{"a":', '1}*AB', 'CD\r'))).toEqual([]);
    expect(text(feed(s, '\nnext'))).toEqual(['{"a":1}*ABCD']);
    expect(s.pendingBytes).toBe(4);
  });

  it('keeps only the first \\r: an inner \\r is part of the line', () => {
    const s = new LineSplitter(100);
    expect(text(feed(s, 'x\ry\r\r\n'))).toEqual(['x\ry\r']);
  });

  it('passes bytes that are not UTF-8 through unchanged', () => {
    const s = new LineSplitter(100);
    const noise = Buffer.from([0x00, 0xff, 0xfe, 0x80, 0xc3, 0x28, 0x0a, 0x6f, 0x6b, 0x0a]);
    const out = s.push(noise);
    expect(out.map((l) => [...l.bytes])).toEqual([
      [0x00, 0xff, 0xfe, 0x80, 0xc3, 0x28],
      [0x6f, 0x6b],
    ]);
  });

  it('hands on a line of exactly maxLineBytes intact, with or without \\r', () => {
    const s = new LineSplitter(8);
    const out = feed(s, '12345678\r', '\n12345678\n');
    expect(out).toEqual([
      { bytes: Buffer.from('12345678'), truncated: false },
      { bytes: Buffer.from('12345678'), truncated: false },
    ]);
  });

  it('truncates a line one byte over the limit to maxLineBytes + 1 bytes', () => {
    const s = new LineSplitter(8);
    expect(feed(s, '123456789\nok\n')).toEqual([
      { bytes: Buffer.from('123456789'), truncated: true },
      { bytes: Buffer.from('ok'), truncated: false },
    ]);
  });

  it('cuts an endless line early, holds bounded memory, and discards to the next newline', () => {
    const s = new LineSplitter(16);
    const out: SplitLine[] = [];
    for (let i = 0; i < 1000; i++) {
      out.push(...s.push(Buffer.alloc(1000, 0x41)));
      expect(s.pendingBytes).toBeLessThanOrEqual(18);
    }
    expect(out).toEqual([{ bytes: Buffer.alloc(17, 0x41), truncated: true }]);
    expect(s.isDiscarding).toBe(true);
    expect(text(feed(s, 'AAAA\nafter\n'))).toEqual(['after']);
    expect(s.isDiscarding).toBe(false);
  });

  it('returns copies, not views of the chunk it was given', () => {
    const s = new LineSplitter(100);
    const chunk = Buffer.from('abc\ndef\n');
    const out = s.push(chunk);
    chunk.fill(0x7a);
    expect(text(out)).toEqual(['abc', 'def']);
  });

  it('flush() returns the unfinished line, but not the rest of a discarded one', () => {
    const s = new LineSplitter(4);
    feed(s, 'ab');
    expect(s.flush()).toEqual({ bytes: Buffer.from('ab'), truncated: false });
    expect(s.flush()).toBeUndefined();
    expect(feed(s, '1234567')).toEqual([{ bytes: Buffer.from('12345'), truncated: true }]);
    expect(s.flush()).toBeUndefined();
    expect(text(feed(s, 'x\n'))).toEqual(['x']);
  });

  it('rejects a limit that is not a positive integer', () => {
    expect(() => new LineSplitter(0)).toThrow(RangeError);
  });
});
