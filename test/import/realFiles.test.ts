/**
 * The four real logger files, each checked against a reference computed in this file straight from
 * the raw text with a different, simpler method (fixed-position dates, new-maximum counting, plain
 * splitting), then split into storm events at dry gaps of 6 h or more.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { detectFormat, parseLoggerFile } from '../../gateway/src/import/formats/index.ts';
import { tipsToReadings } from '../../gateway/src/import/toReadings.ts';

const here = dirname(fileURLToPath(import.meta.url));
const candidates = [process.env.RAIN_DATA_DIR, resolve(here, '../fixtures/rain')].filter(
  (d): d is string => d !== undefined,
);
const DATA_DIR = candidates.find((d) => existsSync(join(d, 'hobo_quincemil_2017.csv')));
if (DATA_DIR === undefined)
  throw new Error(`rain data files not found in ${candidates.join(', ')} (set RAIN_DATA_DIR)`);
const read = (name: string) => readFileSync(join(DATA_DIR, name), 'utf8');

const HOUR = 3_600_000;
const MIN = 60_000;
const GAP = 6 * HOUR;
const QUALIFY_TIPS = 64; // 0.5 in at 0.2 mm per tip: 63 tips = 0.496 in, 64 = 0.504 in
const DOWNLOAD_WINDOW = 10 * MIN;

interface Storm {
  start: number;
  end: number;
  tips: number;
}

/** Storm events: sorted tip times split where the dry gap is 6 h or more. */
function stormsFromTimes(times: number[]): Storm[] {
  const sorted = [...times].sort((a, b) => a - b);
  const out: Storm[] = [];
  for (const t of sorted) {
    const cur = out.at(-1);
    if (cur !== undefined && t - cur.end < GAP) {
      cur.end = t;
      cur.tips++;
    } else out.push({ start: t, end: t, tips: 1 });
  }
  return out;
}

/** Storm events from cumulative-counter readings: each reading adds (rainTips - previous) tips. */
function stormsFromReadings(readings: Array<{ ts: number; values: { rainTips?: number } }>): Storm[] {
  const out: Storm[] = [];
  let prev = 0;
  for (const r of readings) {
    const n = r.values.rainTips!;
    const added = n - prev;
    prev = n;
    const cur = out.at(-1);
    if (cur !== undefined && r.ts - cur.end < GAP) {
      cur.end = r.ts;
      cur.tips += added;
    } else out.push({ start: r.ts, end: r.ts, tips: added });
  }
  return out;
}

const rawLines = (text: string) => text.replace(/^\uFEFF/, '').split(/\r?\n/);

/** Drops tips within 10 min of any logger-event time. */
function withoutDownloadTips(times: number[], events: number[]): number[] {
  return times.filter((t) => !events.some((e) => Math.abs(e - t) <= DOWNLOAD_WINDOW));
}

/** quincemil: `MM/DD/YYYY HH:MM:SS,count`, fixed width; a tip each time the count reaches a new maximum. */
function referenceQuincemil(text: string) {
  const times: number[] = [];
  const events: number[] = [];
  let max = 0;
  let decreases = 0;
  let prevCount = 0;
  for (const line of rawLines(text)) {
    if (line === '') continue;
    const t = Date.UTC(
      +line.slice(6, 10),
      +line.slice(0, 2) - 1,
      +line.slice(3, 5),
      +line.slice(11, 13),
      +line.slice(14, 16),
      +line.slice(17, 19),
    );
    const countText = line.slice(20);
    if (countText === '') {
      events.push(t);
      continue;
    }
    const count = +countText;
    if (count < prevCount) decreases++;
    prevCount = count;
    while (max < count) {
      times.push(t);
      max++;
    }
  }
  return { raw: times, events, decreases };
}

/** burn HOBO: `,M/D/YYYY H:MM,temp,count,...` in GMT-08:00; a tip each time the count column reaches a new maximum. */
function referenceHoboBurn(text: string) {
  const times: number[] = [];
  const events: number[] = [];
  let max = 0;
  const lines = rawLines(text).slice(1);
  for (const line of lines) {
    if (line === '') continue;
    const cells = line.split(',');
    const [mo, d, y, h, mi] = cells[1]!.split(/[/ :]/).map(Number);
    const t = Date.UTC(y!, mo! - 1, d!, h!, mi!) + 8 * HOUR;
    if (cells.slice(2).every((c) => c === '')) {
      events.push(t);
      continue;
    }
    if (cells[3] === '') continue;
    const count = +cells[3]!;
    while (max < count) {
      times.push(t);
      max++;
    }
  }
  return { raw: times, events };
}

/** TOA5: data from line 5; tips = last column / 0.2 at TIMESTAMP (read as UTC). */
function referenceToa5(text: string) {
  const rows = rawLines(text)
    .slice(4)
    .filter((l) => l !== '')
    .map((l) => l.split(',').map((c) => c.replaceAll('"', '')));
  const times: number[] = [];
  for (const r of rows) {
    const t = Date.parse(`${r[0]!.replace(' ', 'T')}Z`);
    const k = Math.round(Number(r.at(-1)) / 0.2);
    for (let i = 0; i < k; i++) times.push(t);
  }
  const first = rows[0]!;
  const second = rows[1]!;
  const firstIsInstall =
    first[1] === '0' &&
    Date.parse(`${second[0]!.replace(' ', 'T')}Z`) - Date.parse(`${first[0]!.replace(' ', 'T')}Z`) >
      24 * HOUR;
  return { raw: times, expected: firstIsInstall ? times.slice(1) : times, firstIsInstall };
}

function checkAgainst(name: string, expected: number[]) {
  const text = read(name);
  const parsed = parseLoggerFile(text);
  const got = parsed.tips.map((t) => t.ts);
  expect(got.length).toBe(expected.length);
  expect(got).toEqual(expected);
  const refStorms = stormsFromTimes(expected);
  const readings = tipsToReadings(parsed.tips, { siteId: 's', deviceId: 'rg', now: () => 0 });
  const gotStorms = stormsFromReadings(readings);
  expect(gotStorms).toEqual(refStorms);
  expect(gotStorms.filter((s) => s.tips >= QUALIFY_TIPS).length).toBe(
    refStorms.filter((s) => s.tips >= QUALIFY_TIPS).length,
  );
  expect(new Date(parsed.tips[0]!.ts).toISOString()).toBe(new Date(expected[0]!).toISOString());
  expect(new Date(parsed.tips.at(-1)!.ts).toISOString()).toBe(new Date(expected.at(-1)!).toISOString());
  expect(parsed.skipped.filter((s) => s.kind === 'bad-row')).toEqual([]);
  return { parsed, refStorms };
}

describe('real logger files against an independent reading of the raw text', () => {
  it('hobo_quincemil_2017.csv: headerless HOBO, 13,911 counted tips, download tips removed', () => {
    const text = read('hobo_quincemil_2017.csv');
    expect(detectFormat(text)).toBe('hobo-csv');
    const ref = referenceQuincemil(text);
    expect(ref.decreases).toBe(0);
    expect(ref.raw.length).toBe(13_911);
    const expected = withoutDownloadTips(ref.raw, ref.events);
    const { parsed, refStorms } = checkAgainst('hobo_quincemil_2017.csv', expected);
    expect(parsed.meta.rawTips).toBe(13_911);
    expect(parsed.meta.downloadTips).toBe(ref.raw.length - expected.length);
    expect(parsed.meta.bouncesRemoved).toBe(0);
    expect(parsed.meta.loggerEvents.map((e) => e.ts)).toEqual(ref.events);
    expect(parsed.skipped.filter((s) => s.kind === 'logger-event').length).toBe(ref.events.length);
    expect(refStorms.some((s) => s.tips >= QUALIFY_TIPS)).toBe(true);
  });

  it('hobo_burn_2022.csv: BOM, header, GMT-08:00, temperature rows are not tips', () => {
    const text = read('hobo_burn_2022.csv');
    expect(text.charCodeAt(0)).toBe(0xfeff);
    expect(detectFormat(text)).toBe('hobo-csv');
    const ref = referenceHoboBurn(text);
    const expected = withoutDownloadTips(ref.raw, ref.events);
    const { parsed } = checkAgainst('hobo_burn_2022.csv', expected);
    expect(parsed.meta.timezone).toBe('UTC-08:00');
    expect(parsed.meta.rawTips).toBe(ref.raw.length);
    expect(parsed.meta.timeResolutionMs).toBe(60_000);
    const temperatureRows = rawLines(text)
      .slice(1)
      .filter((l) => l !== '' && l.split(',')[2] !== '' && l.split(',')[3] === '').length;
    expect(parsed.skipped.filter((s) => s.kind === 'no-count').length).toBe(temperatureRows);
  });

  it('campbell_burn22_rainevent_2022.dat: TOA5, 0.4 rows are two tips, first row is an installation tip', () => {
    const text = read('campbell_burn22_rainevent_2022.dat');
    expect(detectFormat(text)).toBe('toa5');
    const ref = referenceToa5(text);
    expect(ref.firstIsInstall).toBe(true);
    const { parsed } = checkAgainst('campbell_burn22_rainevent_2022.dat', ref.expected);
    expect(parsed.meta.installationTips).toBe(1);
    expect(parsed.skipped.find((s) => s.kind === 'installation')?.line).toBe(5);
    expect(parsed.meta.rawTips).toBe(ref.raw.length);
    expect(parsed.meta.valueUnit).toBe('mm');
  });

  it('campbell_cabin_precip_2022.dat: units row says inch, values are 0.2 mm tips', () => {
    const text = read('campbell_cabin_precip_2022.dat');
    expect(detectFormat(text)).toBe('toa5');
    const ref = referenceToa5(text);
    expect(ref.firstIsInstall).toBe(false);
    const { parsed } = checkAgainst('campbell_cabin_precip_2022.dat', ref.expected);
    expect(parsed.meta.unitsLabel).toBe('inch');
    expect(parsed.meta.valueUnit).toBe('mm');
    expect(parsed.meta.tipMm).toBe(0.2);
    expect(parsed.meta.tipNote).toMatch(/inch/);
  });

  it('two imports of the same file give identical readings (a re-import is all duplicates)', () => {
    for (const name of ['hobo_quincemil_2017.csv', 'campbell_cabin_precip_2022.dat']) {
      const a = tipsToReadings(parseLoggerFile(read(name)).tips, {
        siteId: 's',
        deviceId: 'd',
        now: () => 7,
      });
      const b = tipsToReadings(parseLoggerFile(read(name)).tips, {
        siteId: 's',
        deviceId: 'd',
        now: () => 7,
      });
      expect(a.length).toBeGreaterThan(1000);
      expect(b).toEqual(a);
      expect(new Set(a.map((r) => r.ts)).size).toBe(a.length);
    }
  });

  it('parses the 5-month quincemil file well under a second', () => {
    const text = read('hobo_quincemil_2017.csv');
    parseLoggerFile(text);
    const t0 = performance.now();
    const r = parseLoggerFile(text);
    const ms = performance.now() - t0;
    expect(r.tips.length).toBeGreaterThan(13_000);
    expect(ms).toBeLessThan(500);
  });
});
