import { describe, expect, it } from 'vitest';
import {
  encodeCrc,
  isServiceRequest,
  parseDataLine,
  parseMeasureAnswer,
  sdi12Crc,
  withCrc,
} from '../../gateway/src/decode/sdi12Protocol.ts';

describe('SDI-12 responses', () => {
  it('reads the wait and count of an aM! answer (Sutron SDI-TB manual: a0005)', () => {
    expect(parseMeasureAnswer('00005', '0', 'M')).toEqual({ ok: true, waitSeconds: 0, count: 5 });
    expect(parseMeasureAnswer('10025', '1', 'MC')).toEqual({ ok: true, waitSeconds: 2, count: 5 });
  });

  it('reads atttnn for a concurrent measurement (Campbell CS700H manual: a00009)', () => {
    expect(parseMeasureAnswer('000009', '0', 'C')).toEqual({ ok: true, waitSeconds: 0, count: 9 });
    expect(parseMeasureAnswer('000009', '0', 'M').ok).toBe(false);
  });

  it('refuses an answer from another address or of another shape, in words', () => {
    const other = parseMeasureAnswer('10005', '0', 'M');
    expect(other).toEqual({ ok: false, error: expect.stringContaining('not from the sensor at address 0') });
    const junk = parseMeasureAnswer('0abc', '0', 'M');
    expect(junk.ok).toBe(false);
  });

  it('reads signed values of a data line (Sutron SDI-TB manual: 0+0.01+12+0.12+0.03+0.02)', () => {
    expect(parseDataLine('0+0.01+12+0.12+0.03+0.02', '0', false)).toEqual({
      ok: true,
      values: [0.01, 12, 0.12, 0.03, 0.02],
    });
    expect(parseDataLine('1+2.7+85.2-0.2-2.7+770.5', '1', false)).toEqual({
      ok: true,
      values: [2.7, 85.2, -0.2, -2.7, 770.5],
    });
    expect(parseDataLine('0', '0', false)).toEqual({ ok: true, values: [] });
  });

  it('refuses what is not a value', () => {
    expect(parseDataLine('0+1.2x', '0', false).ok).toBe(false);
    expect(parseDataLine('0+12345678', '0', false).ok).toBe(false);
  });

  it('checks the CRC of an aMC! data line (Vaisala WMT700 guide: 1+2.7+85.2-0.2-2.7+770.5CAH)', () => {
    const line = '1+2.7+85.2-0.2-2.7+770.5CAH';
    expect(parseDataLine(line, '1', true)).toEqual({ ok: true, values: [2.7, 85.2, -0.2, -2.7, 770.5] });
    expect(withCrc('1+2.7+85.2-0.2-2.7+770.5')).toBe(line);
    const damaged = parseDataLine('1+2.7+85.3-0.2-2.7+770.5CAH', '1', true);
    expect(damaged).toEqual({ ok: false, error: expect.stringContaining('damaged') });
  });

  it('computes the CRC-16 of the specification (0xA001 reflected, from zero)', () => {
    // The CRC-16/ARC check value of "123456789".
    expect(sdi12Crc('123456789')).toBe(0xbb3d);
    expect(encodeCrc(0xbb3d)).toBe(String.fromCharCode(0x4b, 0x6c, 0x7d));
  });

  it('knows a service request', () => {
    expect(isServiceRequest('0', '0')).toBe(true);
    expect(isServiceRequest('00', '0')).toBe(false);
  });
});
