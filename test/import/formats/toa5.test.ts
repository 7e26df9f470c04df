import { describe, expect, it } from 'vitest';
import { parseToa5 } from '../../../gateway/src/import/formats/toa5.ts';
import { ImportFormatError } from '../../../gateway/src/import/types.ts';
import { toa5, utc } from '../support.ts';

describe('TOA5 quirks', () => {
  it('skips the four header lines and reads station, logger and table', () => {
    const r = parseToa5(toa5('mm', ['"2022-08-11 19:46:40",7,0.2']));
    expect(r.skipped.filter((s) => s.kind === 'header').map((s) => s.line)).toEqual([1, 2, 3, 4]);
    expect(r.tips).toEqual([{ ts: utc('2022-08-11T19:46:40Z'), line: 5 }]);
    expect(r.meta.station).toBe('Stn');
    expect(r.meta.table).toBe('RainEvent');
    expect(r.meta.logger).toBe('CR1000X S/N 123');
  });

  it('TIMESTAMP is read in the given offset or IANA zone', () => {
    const rows = ['"2022-01-10 12:00:00",5,0.2', '"2022-07-10 12:00:00",6,0.2'];
    const off = parseToa5(toa5('mm', rows), { utcOffsetMinutes: -480 });
    expect(off.tips.map((t) => t.ts)).toEqual([utc('2022-01-10T20:00:00Z'), utc('2022-07-10T20:00:00Z')]);
    const ny = parseToa5(toa5('mm', rows), { timeZone: 'America/New_York' });
    expect(ny.tips.map((t) => t.ts)).toEqual([utc('2022-01-10T17:00:00Z'), utc('2022-07-10T16:00:00Z')]);
    expect(() => parseToa5(toa5('mm', rows), { timeZone: 'Mars/Base' })).toThrow(ImportFormatError);
    expect(() => parseToa5(toa5('mm', rows), { utcOffsetMinutes: 60, timeZone: 'UTC' })).toThrow(/not both/);
  });

  it('an IANA zone resolves the autumn overlap to the first occurrence', () => {
    const r = parseToa5(toa5('mm', ['"2022-11-06 01:30:00",5,0.2']), { timeZone: 'America/New_York' });
    expect(r.tips[0]!.ts).toBe(utc('2022-11-06T05:30:00Z'));
  });
});

describe('bad rows', () => {
  it('TOA5: a bad TIMESTAMP or a NAN value is reported with its line and the rest is read', () => {
    const r = parseToa5(
      toa5('mm', [
        '"2022-08-11 19:46:40",7,0.2',
        '"2022-02-30 19:47:00",8,0.2',
        '"2022-08-11 19:48:00",9,"NAN"',
        '',
        '"2022-08-11 19:49:00",10,0.2',
      ]),
    );
    expect(r.tips.map((t) => t.line)).toEqual([5, 9]);
    expect(r.skipped.filter((s) => s.kind !== 'header').map((s) => [s.line, s.kind])).toEqual([
      [6, 'bad-row'],
      [7, 'bad-row'],
      [8, 'blank'],
    ]);
  });
});
