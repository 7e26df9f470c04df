import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { bytesEqual, concat, fromBase64, toBase64, toHex, utf8 } from '../../gateway/src/ledger/bytes.ts';

describe('bytes without Buffer', () => {
  it('writes base64 and hex as Buffer does, for every length up to 70 and a large one', () => {
    for (const n of [...Array.from({ length: 70 }, (_, i) => i), 100_000]) {
      const b = randomBytes(n);
      expect(toBase64(b)).toBe(b.toString('base64'));
      expect(toHex(b)).toBe(b.toString('hex'));
      expect(bytesEqual(fromBase64(b.toString('base64'))!, b)).toBe(true);
    }
  });

  it('refuses base64 that is not canonical: no padding, stray bits, other alphabets, spaces', () => {
    expect(fromBase64('AAA')).toBeUndefined();
    expect(fromBase64('AB==')).toBeUndefined(); // 'AA==' is the one spelling of the byte 0
    expect(fromBase64('AA==')).toEqual(new Uint8Array([0]));
    expect(fromBase64('-_8=')).toBeUndefined();
    expect(fromBase64('AA AA')).toBeUndefined();
    expect(fromBase64('')).toEqual(new Uint8Array(0));
  });

  it('joins and compares, and encodes UTF-8', () => {
    expect(concat(utf8('a'), new Uint8Array([0]), utf8('é'))).toEqual(new Uint8Array([97, 0, 0xc3, 0xa9]));
    expect(bytesEqual(utf8('ab'), utf8('ab'))).toBe(true);
    expect(bytesEqual(utf8('ab'), utf8('ac'))).toBe(false);
    expect(bytesEqual(utf8('ab'), utf8('abc'))).toBe(false);
  });
});
