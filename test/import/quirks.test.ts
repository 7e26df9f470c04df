import { describe, expect, it } from 'vitest';
import { parseHoboCsv, parseToa5 } from '../../gateway/src/import/formats/index.ts';
import { tipsToReadings } from '../../gateway/src/import/toReadings.ts';
import { HOBO_HEADER, toa5 } from './support.ts';

describe('HOBO quirks', () => {
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
});
