import { describe, expect, it } from 'vitest';
import { parseHoboCsv } from '../../../gateway/src/import/formats/hobo.ts';
import { detectFormat } from '../../../gateway/src/import/formats/index.ts';
import { HOBO_HEADER, utc } from '../support.ts';

describe('HOBO quirks', () => {
  it('reads a byte-order mark and a header row, with the header GMT offset', () => {
    const text = `\uFEFF${HOBO_HEADER}\r\n,06/03/2022 8:34,,1,,,,\r\n,06/03/2022 9:04,,2,,,,\r\n`;
    expect(detectFormat(text)).toBe('hobo-csv');
    const r = parseHoboCsv(text);
    expect(r.tips.map((t) => t.ts)).toEqual([utc('2022-06-03T16:34:00Z'), utc('2022-06-03T17:04:00Z')]);
    expect(r.tips.map((t) => t.line)).toEqual([2, 3]);
    expect(r.skipped).toEqual([{ line: 1, kind: 'header', reason: 'column header' }]);
    expect(r.meta.timezone).toBe('UTC-08:00');
  });

  it('an explicit offset overrides the header, and the note keeps what the file said', () => {
    const text = `${HOBO_HEADER}\n,06/03/2022 8:34,,1,,,,\n`;
    const r = parseHoboCsv(text, { utcOffsetMinutes: -300 });
    expect(r.tips[0]!.ts).toBe(utc('2022-06-03T13:34:00Z'));
    expect(r.meta.timezoneNote).toMatch(/GMT-08:00/);
  });

  it('temperature rows without a count are not tips; empty rows and event columns are logger events', () => {
    const text = [
      HOBO_HEADER,
      ',06/03/2022 8:00,12.5,,,,,',
      ',06/03/2022 8:34,,1,,,,',
      ',06/04/2022 9:00,,,Logged,,,',
      ',06/05/2022 9:00,,,,,,',
      ',06/06/2022 8:00,,2,,,,',
    ].join('\n');
    const r = parseHoboCsv(text, { downloadWindowMinutes: 0, installationGapHours: 0 });
    expect(r.tips.map((t) => t.line)).toEqual([3, 6]);
    expect(r.skipped.map((s) => [s.line, s.kind])).toEqual([
      [1, 'header'],
      [2, 'no-count'],
      [4, 'logger-event'],
      [5, 'logger-event'],
    ]);
    expect(r.skipped[2]!.reason).toMatch(/Coupler Attached/);
    expect(r.meta.loggerEvents.map((e) => e.line)).toEqual([4, 5]);
  });

  it('headerless empty-count rows are logger events and the count carries on across them', () => {
    const text =
      '02/14/2017 16:00:00,0\n02/14/2017 22:07:19,1\n02/17/2017 14:10:30,\n02/20/2017 10:00:00,2\n';
    const r = parseHoboCsv(text, { downloadWindowMinutes: 0, installationGapHours: 0 });
    expect(r.tips.map((t) => t.line)).toEqual([2, 4]);
    expect(r.skipped.map((s) => [s.line, s.kind])).toEqual([
      [1, 'no-increase'],
      [3, 'logger-event'],
    ]);
    expect(r.meta.timezoneNote).toMatch(/no time zone/);
  });
});

describe('bad rows', () => {
  it('HOBO: a bad date or count is reported with its line and the rest is read', () => {
    const text = [
      '06/01/2022 10:00:00,1',
      '13/45/2022 10:05:00,2',
      'yesterday,2',
      '06/01/2022 10:10:00,many',
      '06/01/2022 10:15:00,2',
    ].join('\n');
    const r = parseHoboCsv(text);
    expect(r.tips.map((t) => t.line)).toEqual([1, 5]);
    expect(r.skipped.map((s) => [s.line, s.kind])).toEqual([
      [2, 'bad-row'],
      [3, 'bad-row'],
      [4, 'bad-row'],
    ]);
    expect(r.skipped[0]!.reason).toMatch(/13\/45\/2022/);
  });
});
