import { describe, expect, it } from 'vitest';
import {
  detectFormat,
  parseHoboCsv,
  parseLoggerFile,
  parseToa5,
} from '../../gateway/src/import/formats/index.ts';
import { tipsToReadings } from '../../gateway/src/import/toReadings.ts';
import { ImportFormatError } from '../../gateway/src/import/types.ts';

const utc = (s: string) => Date.parse(s);

const HOBO_HEADER =
  '#,"Date Time, GMT-08:00","Temp, °C (LGR S/N: 1)","Ext. Line Event, units (LGR S/N: 2)",Coupler Attached (LGR S/N: 1),Host Connected (LGR S/N: 1),Stopped (LGR S/N: 1),End Of File (LGR S/N: 1)';

const toa5 = (units: string, rows: string[]) =>
  [
    '"TOA5","Stn","CR1000X","123","OS","CPU:x.CR1X","1","RainEvent"',
    '"TIMESTAMP","RECORD","Rain_mm_Tot"',
    `"TS","RN","${units}"`,
    '"","","Tot"',
    ...rows,
  ].join('\r\n');

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

  it('tips next to a download event are removed and counted; the window is an option', () => {
    const text = [
      '07/01/2017 10:00:00,1',
      '07/02/2017 12:00:00,2',
      '07/02/2017 12:03:00,',
      '07/02/2017 12:20:00,3',
    ].join('\n');
    const r = parseHoboCsv(text, { installationGapHours: 0 });
    expect(r.tips.map((t) => t.line)).toEqual([1, 4]);
    expect(r.meta.downloadTips).toBe(1);
    expect(r.skipped.find((s) => s.kind === 'download')?.line).toBe(2);
    expect(parseHoboCsv(text, { downloadWindowMinutes: 0, installationGapHours: 0 }).tips.length).toBe(3);
  });

  it('two tips under one second apart are one bounced tip: the first is kept', () => {
    const text = [
      '06/01/2022 12:00:05,1',
      '06/01/2022 12:00:05,2',
      '06/01/2022 12:00:06,3',
      '06/01/2022 12:00:10.000,4',
      '06/01/2022 12:00:10.600,5',
      '06/01/2022 12:00:11.200,6',
    ].join('\n');
    const r = parseHoboCsv(text);
    expect(r.tips.map((t) => t.line)).toEqual([1, 3, 4, 6]);
    expect(r.meta.bouncesRemoved).toBe(2);
    expect(r.meta.rawTips).toBe(6);
    const bounces = r.skipped.filter((s) => s.kind === 'bounce');
    expect(bounces.map((s) => s.line)).toEqual([2, 5]);
    expect(bounces[1]!.reason).toMatch(/600 ms after the tip on line 4/);
  });

  it('with times logged to the minute the bounce check is not possible and same-minute tips stay', () => {
    const text = `${HOBO_HEADER}\n,06/03/2022 8:34,,1,,,,\n,06/03/2022 8:34,,2,,,,\n`;
    const r = parseHoboCsv(text);
    expect(r.tips.length).toBe(2);
    expect(r.meta.bounceCheck).toMatch(/not possible/);
  });

  it('a count that drops is a counter restart: the new value counts as tips since 0', () => {
    const text = [
      '06/01/2022 10:00:00,1',
      '06/01/2022 10:05:00,2',
      '06/01/2022 10:10:00,3',
      '06/01/2022 11:00:00,0',
      '06/01/2022 11:05:00,2',
      '06/01/2022 11:10:00,3',
      '06/01/2022 12:00:00,1',
    ].join('\n');
    const r = parseHoboCsv(text);
    expect(r.tips.length).toBe(3 + 2 + 1 + 1);
    expect(r.meta.counterRestarts).toEqual([
      { line: 4, from: 3, to: 0 },
      { line: 7, from: 3, to: 1 },
    ]);
    expect(r.skipped.find((s) => s.line === 4)?.reason).toMatch(/restarted at 0/);
    const readings = tipsToReadings(r.tips, { siteId: 's', deviceId: 'd', now: () => 1 });
    expect(readings.map((x) => x.values.rainTips)).toEqual([1, 2, 3, 5, 6, 7]);
  });

  it('an isolated first tip (more than 24 h before the next) is an installation tip', () => {
    const text = ['05/01/2022 09:00:00,1', '05/03/2022 10:00:00,2', '05/03/2022 10:10:00,3'].join('\n');
    const r = parseHoboCsv(text);
    expect(r.tips.map((t) => t.line)).toEqual([2, 3]);
    expect(r.skipped).toEqual([expect.objectContaining({ line: 1, kind: 'installation' })]);
    const close = ['05/01/2022 09:00:00,1', '05/02/2022 08:00:00,2'].join('\n');
    expect(parseHoboCsv(close).tips.length).toBe(2);
  });

  it('a count increase of k in one row is k tips at that time, one reading', () => {
    const r = parseHoboCsv('06/01/2022 10:00:00,3\n');
    expect(r.tips.length).toBe(3);
    const readings = tipsToReadings(r.tips, { siteId: 's', deviceId: 'd', startCount: 10, now: () => 1 });
    expect(readings).toHaveLength(1);
    expect(readings[0]!.values.rainTips).toBe(13);
  });
});

describe('TOA5 quirks', () => {
  it('skips the four header lines and reads station, logger and table', () => {
    const r = parseToa5(toa5('mm', ['"2022-08-11 19:46:40",7,0.2']));
    expect(r.skipped.filter((s) => s.kind === 'header').map((s) => s.line)).toEqual([1, 2, 3, 4]);
    expect(r.tips).toEqual([{ ts: utc('2022-08-11T19:46:40Z'), line: 5 }]);
    expect(r.meta.station).toBe('Stn');
    expect(r.meta.table).toBe('RainEvent');
    expect(r.meta.logger).toBe('CR1000X S/N 123');
  });

  it('a 0.4 row is two tips in one scan (not a bounce) and becomes one reading of +2', () => {
    const r = parseToa5(toa5('mm', ['"2022-08-11 19:46:40",7,0.2', '"2022-08-11 19:47:30",8,0.4']));
    expect(r.tips.map((t) => t.line)).toEqual([5, 6, 6]);
    expect(r.meta.bouncesRemoved).toBe(0);
    const readings = tipsToReadings(r.tips, { siteId: 's', deviceId: 'd', now: () => 1 });
    expect(readings.map((x) => [x.seq, x.values.rainTips])).toEqual([
      [0, 1],
      [1, 3],
    ]);
  });

  it('a units row saying inch over 0.2 multiples is read as millimetres', () => {
    const r = parseToa5(toa5('inch', ['"2022-08-11 19:46:40",7,0.2', '"2022-08-11 19:47:30",8,0.4']));
    expect(r.tips.length).toBe(3);
    expect(r.meta.valueUnit).toBe('mm');
    expect(r.meta.tipMm).toBe(0.2);
    expect(r.meta.tipNote).toMatch(/says "inch"/);
  });

  it('values in 0.01 in steps are read as inches', () => {
    const r = parseToa5(toa5('inch', ['"2022-08-11 19:46:40",7,0.01', '"2022-08-11 19:47:30",8,0.03']));
    expect(r.tips.length).toBe(4);
    expect(r.meta.valueUnit).toBe('in');
    expect(r.meta.tipMm).toBe(0.254);
  });

  it('the tipMm option overrides the decision from the values', () => {
    const r = parseToa5(toa5('mm', ['"2022-08-11 19:46:40",7,0.2', '"2022-08-11 19:47:30",8,0.4']), {
      tipMm: 0.1,
    });
    expect(r.tips.length).toBe(6);
    expect(r.meta.tipNote).toMatch(/tipMm option/);
  });

  it('with the tip size given, a value that is not a whole number of tips is a reported bad row', () => {
    const rows = ['"2022-08-11 19:46:40",7,0.2', '"2022-08-11 19:47:30",8,0.3'];
    const r = parseToa5(toa5('mm', rows), { tipMm: 0.2 });
    expect(r.tips.length).toBe(1);
    expect(r.skipped.find((s) => s.kind === 'bad-row')).toMatchObject({ line: 6 });
    const guessed = parseToa5(toa5('mm', rows));
    expect(guessed.meta.tipMm).toBe(0.1);
    expect(guessed.tips.length).toBe(5);
  });

  it('the first tip of a table that starts at RECORD 0, followed by more than 24 h dry, is an installation tip', () => {
    const rows = [
      '"2022-08-08 10:24:40",0,0.2',
      '"2022-08-11 19:46:40",1,0.2',
      '"2022-08-11 19:47:30",2,0.2',
    ];
    const r = parseToa5(toa5('mm', rows));
    expect(r.tips.map((t) => t.line)).toEqual([6, 7]);
    expect(r.meta.installationTips).toBe(1);
    expect(r.skipped.find((s) => s.kind === 'installation')?.line).toBe(5);

    const continued = rows.map((l, i) => l.replace(`,${i},`, `,${3587 + i},`));
    expect(parseToa5(toa5('mm', continued)).meta.installationTips).toBe(0);
    expect(parseToa5(toa5('mm', rows), { installationGapHours: 0 }).tips.length).toBe(3);
    const within = ['"2022-08-08 10:24:40",0,0.2', '"2022-08-09 10:24:00",1,0.2'];
    expect(parseToa5(toa5('mm', within)).meta.installationTips).toBe(0);
  });

  it('skipBefore removes every tip before the given instant instead of the heuristic', () => {
    const rows = [
      '"2022-08-08 10:24:40",0,0.2',
      '"2022-08-08 10:30:00",1,0.4',
      '"2022-08-11 19:46:40",2,0.2',
    ];
    const r = parseToa5(toa5('mm', rows), { skipBefore: '2022-08-08T10:30:00Z' });
    expect(r.tips.map((t) => t.line)).toEqual([6, 6, 7]);
    expect(r.skipped.filter((s) => s.kind === 'before-start').map((s) => s.line)).toEqual([5]);
    const r2 = parseToa5(toa5('mm', rows), { skipBefore: '2022-08-08T03:31:00-07:00' });
    expect(r2.tips.map((t) => t.line)).toEqual([7]);
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

  it('an unknown file is refused with a reason', () => {
    expect(() => detectFormat('hello,world\n1,2\n')).toThrow(ImportFormatError);
    expect(() => parseLoggerFile('')).toThrow(/empty/);
  });

  it('bad options are refused with their path', () => {
    expect(() => parseHoboCsv('06/01/2022 10:00:00,1', { skipBefore: '2022-08-08 10:00' })).toThrow(
      /skipBefore/,
    );
  });
});
