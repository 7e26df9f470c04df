/**
 * Rain-gauge logger files to tips. Two formats: Onset HOBO event-logger CSV exports (a cumulative
 * event count per row) and Campbell Scientific TOA5 tables (rain per scan). The result is one entry
 * per tip at its source time (epoch ms, UTC) with the file line it came from; every row that yields
 * no tip, and every tip the quirk steps remove, is listed in `skipped` with its line and a reason.
 *
 * Quirk steps, in this order, each counted:
 *  1. bounce: a tip less than `bounceMs` (1000) after the last kept tip, from a different row, is one
 *     bounced tip; the first is kept. Only possible when the file logs times to the second or finer.
 *  2. start: tips before `skipBefore` are installation tips; without `skipBefore`, a first tip followed
 *     by more than `installationGapHours` (24) of nothing is flagged as an installation tip (for TOA5
 *     only when the table starts at RECORD 0, i.e. the file begins at the logger's start).
 *  3. download: tips within `downloadWindowMinutes` (10) of a logger event row (HOBO download,
 *     coupler, stop) are a person handling the gauge, not rain.
 */
import { z } from 'zod';
import {
  assertTimeZone,
  describeZone,
  makeWallToUtc,
  type WallTime,
  wallTimeAsUtc,
  type Zone,
} from './time.ts';

export const LOGGER_FORMATS = ['hobo-csv', 'toa5'] as const;
export type LoggerFormat = (typeof LOGGER_FORMATS)[number];

/** Stable identifiers for why a row gave no tip or a tip was removed. */
export const SKIP_KINDS = [
  'header',
  'blank',
  'bad-row',
  'logger-event',
  'no-count',
  'no-increase',
  'no-rain',
  'bounce',
  'before-start',
  'installation',
  'download',
] as const;
export type SkipKind = (typeof SKIP_KINDS)[number];

export const parseOptionsSchema = z
  .strictObject({
    /** Overrides format detection. */
    format: z.enum(LOGGER_FORMATS).optional(),
    /** Zone of the file's wall-clock times, minutes east of UTC (UTC-08:00 = -480). Overrides a HOBO header. */
    utcOffsetMinutes: z
      .number()
      .int()
      .min(-14 * 60)
      .max(14 * 60)
      .optional(),
    /** Or an IANA zone (daylight saving applied). Loggers usually keep standard time: prefer the offset. */
    timeZone: z.string().min(1).optional(),
    /** Tip size in millimetres; for TOA5 this overrides the decision taken from the values. */
    tipMm: z.number().positive().max(10).optional(),
    /** Tips before this instant are installation tips (ISO 8601 with a zone, or epoch ms). */
    skipBefore: z.union([z.iso.datetime({ offset: true }), z.number().int()]).optional(),
    /** Two tips closer than this are one bounced tip; 0 turns the step off. */
    bounceMs: z.number().int().min(0).max(60_000).default(1000),
    /** A first tip followed by more than this many hours of nothing is an installation tip; 0 turns it off. */
    installationGapHours: z.number().min(0).default(24),
    /** Tips this close to a logger event row are download tips; 0 turns it off. */
    downloadWindowMinutes: z.number().min(0).default(10),
  })
  .refine((o) => o.utcOffsetMinutes === undefined || o.timeZone === undefined, {
    message: 'give utcOffsetMinutes or timeZone, not both',
    path: ['timeZone'],
  });
export type ParseOptions = z.input<typeof parseOptionsSchema>;
type ResolvedOptions = z.output<typeof parseOptionsSchema>;

export interface Tip {
  /** Source time, epoch ms UTC. */
  ts: number;
  /** 1-based line of the file the tip came from. */
  line: number;
}

export interface SkippedRow {
  line: number;
  kind: SkipKind;
  reason: string;
}

export interface LoggerEvent {
  line: number;
  ts: number;
  what: string;
}

export interface ParseMeta {
  format: LoggerFormat;
  /** Logger model and serial number, when the file says. */
  logger?: string;
  station?: string;
  program?: string;
  table?: string;
  /** The zone the wall times were read in, e.g. `UTC-08:00` or `America/New_York`. */
  timezone: string;
  timezoneNote: string;
  /** The unit the file's label claims (TOA5 units row, HOBO count column header). */
  unitsLabel?: string;
  /** What the values were read as: a cumulative event count, or rain per row in mm or inches. */
  valueUnit: 'count' | 'mm' | 'in';
  /** Tip size in mm when known from the values or the `tipMm` option; a HOBO count does not say. */
  tipMm?: number;
  tipNote: string;
  columns: { time: string; rain: string };
  /** Time of the earliest row with a readable time (launch, temperature or tip row), epoch ms UTC. */
  firstRowTs?: number;
  /** The coarsest step of the file's timestamps: 1000 (seconds), 60000 (minutes). */
  timeResolutionMs: number;
  /** Lines in the file, headers included. */
  lines: number;
  /** Tips read from the rows, before the quirk steps. */
  rawTips: number;
  bouncesRemoved: number;
  bounceCheck: string;
  installationTips: number;
  downloadTips: number;
  counterRestarts: Array<{ line: number; from: number; to: number }>;
  loggerEvents: LoggerEvent[];
  /** Rows whose time is earlier than the row before (logger clock set back). Tips are sorted by time. */
  outOfOrderRows: number;
}

export interface ParseResult {
  /** Tips in time order (file order for equal times), after the quirk steps. */
  tips: Tip[];
  skipped: SkippedRow[];
  meta: ParseMeta;
}

export class ImportFormatError extends Error {
  override name = 'ImportFormatError';
}

const BOM = '\uFEFF';

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.endsWith('\r')) lines[i] = l.slice(0, -1);
  }
  if (lines[0]?.startsWith(BOM)) lines[0] = lines[0].slice(1);
  return lines;
}

/** One CSV line to cells; double quotes group commas, `""` inside quotes is a quote. */
export function splitCsv(line: string): string[] {
  if (!line.includes('"')) return line.split(',');
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c !== '"') cur += c;
      else if (line[i + 1] === '"') {
        cur += '"';
        i++;
      } else quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

const US_DATE =
  /^(\d{1,2})\/(\d{1,2})\/(\d{4}|\d{2})[ T]+(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(?:\s*([AaPp])\.?[Mm]\.?)?$/;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/;

interface ParsedTime {
  wall: WallTime;
  /** Step of the written time: 60000 without seconds, 1000 with, finer with fractions. */
  resolutionMs: number;
}

function fraction(s: string | undefined): { ms: number; res: number } {
  if (s === undefined) return { ms: 0, res: 1000 };
  const ms = Math.floor(Number(`0.${s}`) * 1000);
  return { ms, res: Math.max(1, 10 ** (3 - Math.min(3, s.length))) };
}

/** HOBO dates: MM/DD/YYYY (or YY) H:MM[:SS[.fff]] [AM|PM], or ISO `YYYY-MM-DD HH:MM[:SS]`. */
export function parseHoboTime(s: string): ParsedTime | undefined {
  let m = US_DATE.exec(s);
  if (m) {
    let year = Number(m[3]);
    if (m[3]!.length === 2) year += 2000;
    let hour = Number(m[4]);
    const ampm = m[8];
    if (ampm !== undefined) {
      if (hour < 1 || hour > 12) return undefined;
      const pm = ampm === 'p' || ampm === 'P';
      hour = (hour % 12) + (pm ? 12 : 0);
    }
    const f = fraction(m[7]);
    return {
      wall: {
        year,
        month: Number(m[1]),
        day: Number(m[2]),
        hour,
        minute: Number(m[5]),
        second: m[6] === undefined ? 0 : Number(m[6]),
        ms: f.ms,
      },
      resolutionMs: m[6] === undefined ? 60_000 : f.res,
    };
  }
  m = ISO_DATE.exec(s);
  if (m) return isoParts(m);
  return undefined;
}

function isoParts(m: RegExpExecArray): ParsedTime {
  const f = fraction(m[7]);
  return {
    wall: {
      year: Number(m[1]),
      month: Number(m[2]),
      day: Number(m[3]),
      hour: Number(m[4]),
      minute: Number(m[5]),
      second: m[6] === undefined ? 0 : Number(m[6]),
      ms: f.ms,
    },
    resolutionMs: m[6] === undefined ? 60_000 : f.res,
  };
}

/** TOA5 TIMESTAMP: `YYYY-MM-DD HH:MM:SS[.fff]`. */
export function parseToa5Time(s: string): ParsedTime | undefined {
  const m = ISO_DATE.exec(s);
  return m ? isoParts(m) : undefined;
}

/** 'toa5' for a Campbell TOA5 table, 'hobo-csv' for a HOBO export; throws ImportFormatError otherwise. */
export function detectFormat(text: string): LoggerFormat {
  const lines = splitLines(text.slice(0, 8192));
  const first = lines.findIndex((l) => l.trim() !== '');
  if (first < 0) throw new ImportFormatError('the file is empty');
  const cells = splitCsv(lines[first]!).map((c) => c.trim());
  if (cells[0] === 'TOA5') return 'toa5';
  if (cells[0] === 'TOB1' || cells[0] === 'TOB3' || cells[0] === 'TOACI1')
    throw new ImportFormatError(`Campbell ${cells[0]} files are not supported: export the table as TOA5`);
  for (const line of lines.slice(first, first + 5)) {
    const c = splitCsv(line).map((x) => x.trim());
    if (c.some((x) => /^date\b/i.test(x))) return 'hobo-csv';
    if (c[0] !== undefined && parseHoboTime(c[0]) !== undefined) return 'hobo-csv';
  }
  throw new ImportFormatError(
    `unrecognised logger file: line ${first + 1} is neither a TOA5 header nor a HOBO export ("${lines[first]!.slice(0, 80)}")`,
  );
}

interface ZoneChoice {
  zone: Zone;
  note: string;
}

function chooseZone(o: ResolvedOptions, fromFile?: { minutes: number; label: string }): ZoneChoice {
  const fileSays = fromFile ? `; the file says "${fromFile.label}"` : '';
  if (o.utcOffsetMinutes !== undefined) {
    const zone: Zone = { kind: 'offset', minutes: o.utcOffsetMinutes };
    return { zone, note: `times read as ${describeZone(zone)} (utcOffsetMinutes option)${fileSays}` };
  }
  if (o.timeZone !== undefined) {
    try {
      assertTimeZone(o.timeZone);
    } catch (err) {
      throw new ImportFormatError(`unknown time zone "${o.timeZone}": ${(err as Error).message}`);
    }
    return {
      zone: { kind: 'iana', name: o.timeZone },
      note: `times read in ${o.timeZone} (timeZone option)${fileSays}`,
    };
  }
  if (fromFile) {
    const zone: Zone = { kind: 'offset', minutes: fromFile.minutes };
    return { zone, note: `times read as ${describeZone(zone)}, from the file's "${fromFile.label}"` };
  }
  return {
    zone: { kind: 'offset', minutes: 0 },
    note: 'the file gives no time zone: times read as UTC (pass utcOffsetMinutes or timeZone)',
  };
}

interface RawParse {
  tips: Tip[];
  skipped: SkippedRow[];
  meta: Omit<
    ParseMeta,
    | 'bouncesRemoved'
    | 'bounceCheck'
    | 'installationTips'
    | 'downloadTips'
    | 'rawTips'
    | 'outOfOrderRows'
    | 'firstRowTs'
  >;
  firstRowTs: number | undefined;
  /** Whether the first tip may be an installation tip (TOA5: table starts at RECORD 0). */
  installationCheck: boolean;
  outOfOrderRows: number;
}

const EVENT_COLUMN =
  /coupler|host connect|stopped|end of file|battery|button|started|^logged|^launch|detached|connected/i;

function parseHoboRaw(lines: string[], o: ResolvedOptions): RawParse {
  const skipped: SkippedRow[] = [];
  const tips: Tip[] = [];
  let start = lines.findIndex((l) => l.trim() !== '');
  if (start < 0) throw new ImportFormatError('the file is empty');

  let timeCol = 0;
  let dateOnlyCol = -1;
  let countCol = 1;
  let eventCols: Array<{ col: number; name: string }> = [];
  let valueCols: number[] = [];
  let countLabel = 'column 2 (cumulative count)';
  let timeLabel = 'column 1';
  let fileZone: { minutes: number; label: string } | undefined;
  let logger: string | undefined;

  const firstCells = splitCsv(lines[start]!).map((c) => c.trim());
  if (parseHoboTime(firstCells[0] ?? '') === undefined) {
    let header = -1;
    for (let i = start; i < Math.min(lines.length, start + 5); i++) {
      if (
        splitCsv(lines[i]!)
          .map((c) => c.trim())
          .some((c) => /^date\b/i.test(c))
      ) {
        header = i;
        break;
      }
    }
    if (header < 0) throw new ImportFormatError('HOBO export: no "Date Time" header and no date in column 1');
    for (let i = start; i < header; i++) skipped.push({ line: i + 1, kind: 'header', reason: 'title line' });
    skipped.push({ line: header + 1, kind: 'header', reason: 'column header' });
    const names = splitCsv(lines[header]!).map((c) => c.trim());
    timeCol = names.findIndex((n) => /^date\s*time/i.test(n));
    if (timeCol < 0) {
      dateOnlyCol = names.findIndex((n) => /^date\b/i.test(n));
      timeCol = names.findIndex((n) => /^time\b/i.test(n));
      if (dateOnlyCol < 0 || timeCol < 0)
        throw new ImportFormatError(`HOBO export: no date-time column in line ${header + 1}`);
    }
    timeLabel = names[timeCol]!;
    const zoneText = dateOnlyCol >= 0 ? `${names[dateOnlyCol]} ${names[timeCol]}` : names[timeCol]!;
    const zm = /GMT\s*([+-])\s*(\d{1,2})(?::?(\d{2}))?/i.exec(zoneText);
    if (zm) {
      const minutes = (zm[1] === '-' ? -1 : 1) * (Number(zm[2]) * 60 + Number(zm[3] ?? 0));
      fileZone = { minutes, label: zm[0] };
    }
    eventCols = names
      .map((name, col) => ({ col, name }))
      .filter((c) => EVENT_COLUMN.test(c.name) && c.col !== timeCol && c.col !== dateOnlyCol);
    const isEvent = (col: number) => eventCols.some((e) => e.col === col);
    countCol = names.findIndex((n, col) => /event/i.test(n) && !isEvent(col));
    if (countCol < 0) countCol = names.findIndex((n, col) => /count|tip|rain/i.test(n) && !isEvent(col));
    if (countCol < 0)
      throw new ImportFormatError(
        `HOBO export: no event-count column among ${names.map((n) => `"${n}"`).join(', ')}`,
      );
    countLabel = names[countCol]!;
    valueCols = names
      .map((n, col) => ({ n, col }))
      .filter(
        ({ n, col }) =>
          n !== '' &&
          n !== '#' &&
          col !== timeCol &&
          col !== dateOnlyCol &&
          col !== countCol &&
          !isEvent(col),
      )
      .map(({ col }) => col);
    const sn = /LGR S\/N:\s*(\d+)/.exec(countLabel);
    if (sn) logger = `HOBO S/N ${sn[1]}`;
    start = header + 1;
  }

  const { zone, note } = chooseZone(o, fileZone);
  const toUtc = makeWallToUtc(zone);
  const loggerEvents: LoggerEvent[] = [];
  const counterRestarts: ParseMeta['counterRestarts'] = [];
  let prev = 0;
  let firstRowTs: number | undefined;
  let anyCount = false;
  let resolution = 1;
  let lastTs = Number.NEGATIVE_INFINITY;
  let outOfOrder = 0;

  for (let i = start; i < lines.length; i++) {
    const line = i + 1;
    const raw = lines[i]!;
    if (raw.trim() === '') {
      skipped.push({ line, kind: 'blank', reason: 'empty line' });
      continue;
    }
    const cells = splitCsv(raw);
    const timeText =
      dateOnlyCol >= 0
        ? `${(cells[dateOnlyCol] ?? '').trim()} ${(cells[timeCol] ?? '').trim()}`
        : (cells[timeCol] ?? '').trim();
    const parsed = parseHoboTime(timeText);
    const wallUtc = parsed ? wallTimeAsUtc(parsed.wall) : undefined;
    if (parsed === undefined || wallUtc === undefined) {
      skipped.push({ line, kind: 'bad-row', reason: `unreadable date "${timeText}"` });
      continue;
    }
    const ts = toUtc(wallUtc);
    if (ts < lastTs) outOfOrder++;
    lastTs = ts;
    if (firstRowTs === undefined || ts < firstRowTs) firstRowTs = ts;
    const events = eventCols.filter((e) => (cells[e.col] ?? '').trim() !== '').map((e) => e.name);
    const countText = (cells[countCol] ?? '').trim();
    if (events.length > 0) loggerEvents.push({ line, ts, what: events.join(', ') });

    if (countText === '') {
      if (events.length > 0) {
        skipped.push({ line, kind: 'logger-event', reason: `logger event: ${events.join(', ')}` });
      } else if (valueCols.some((c) => (cells[c] ?? '').trim() !== '')) {
        skipped.push({ line, kind: 'no-count', reason: 'no event count (other sensor values only)' });
      } else {
        loggerEvents.push({ line, ts, what: 'row without values' });
        skipped.push({
          line,
          kind: 'logger-event',
          reason: 'logger event row without a count (download, launch or stop)',
        });
      }
      continue;
    }
    const n = Number(countText);
    if (!Number.isInteger(n) || n < 0) {
      skipped.push({
        line,
        kind: 'bad-row',
        reason: `event count "${countText}" is not a whole number >= 0`,
      });
      continue;
    }
    resolution = Math.max(resolution, parsed.resolutionMs);
    let k: number;
    if (n >= prev) k = n - prev;
    else {
      counterRestarts.push({ line, from: prev, to: n });
      k = n;
    }
    prev = n;
    if (k === 0) {
      const why =
        events.length > 0
          ? `logger event: ${events.join(', ')} (count ${n} unchanged)`
          : !anyCount && n === 0
            ? 'count 0 at start: logger launch, no tip'
            : counterRestarts.at(-1)?.line === line
              ? 'counter restarted at 0'
              : `count ${n} repeats the previous count: no tip`;
      skipped.push({ line, kind: events.length > 0 ? 'logger-event' : 'no-increase', reason: why });
    }
    anyCount = true;
    for (let t = 0; t < k; t++) tips.push({ ts, line });
  }

  return {
    tips,
    skipped,
    installationCheck: true,
    outOfOrderRows: outOfOrder,
    firstRowTs,
    meta: {
      format: 'hobo-csv',
      ...(logger !== undefined ? { logger } : {}),
      timezone: describeZone(zone),
      timezoneNote: note,
      unitsLabel: countLabel,
      valueUnit: 'count',
      ...(o.tipMm !== undefined ? { tipMm: o.tipMm } : {}),
      tipNote:
        o.tipMm !== undefined
          ? `${o.tipMm} mm per tip (tipMm option)`
          : 'a HOBO event count does not give the tip size: take it from the device configuration',
      columns: { time: timeLabel, rain: countLabel },
      timeResolutionMs: resolution === 1 && tips.length === 0 ? 1000 : resolution,
      lines: lines.length,
      counterRestarts,
      loggerEvents,
    },
  };
}

interface TipSize {
  unit: 'mm' | 'in';
  /** Tip size in the unit of the values. */
  tip: number;
  tipMm: number;
}

const near = (v: number, tip: number) => Math.abs(v / tip - Math.round(v / tip)) < 1e-3 && v / tip >= 0.5;

function unitFromLabel(label: string): 'mm' | 'in' | undefined {
  if (/^\s*mm\b|millim/i.test(label)) return 'mm';
  if (/^\s*(in|inch|inches)\b/i.test(label)) return 'in';
  return undefined;
}

function decideTipSize(
  values: number[],
  label: string,
  tipMm: number | undefined,
): { size: TipSize; note: string } {
  const labelUnit = unitFromLabel(label);
  let candidates: TipSize[];
  if (tipMm !== undefined) {
    const mm: TipSize = { unit: 'mm', tip: tipMm, tipMm };
    const inch: TipSize = { unit: 'in', tip: tipMm / 25.4, tipMm };
    candidates = labelUnit === 'in' ? [inch, mm] : [mm, inch];
  } else {
    const inch: TipSize = { unit: 'in', tip: 0.01, tipMm: 0.254 };
    const mm: TipSize[] = [
      { unit: 'mm', tip: 0.2, tipMm: 0.2 },
      { unit: 'mm', tip: 0.254, tipMm: 0.254 },
      { unit: 'mm', tip: 0.1, tipMm: 0.1 },
      { unit: 'mm', tip: 0.5, tipMm: 0.5 },
    ];
    candidates = labelUnit === 'mm' ? [...mm, inch] : [mm[0]!, inch, ...mm.slice(1)];
  }
  const unitName = (u: 'mm' | 'in') => (u === 'mm' ? 'millimetres' : 'inches');
  const describe = (c: TipSize) => `${Number(c.tip.toPrecision(6))} ${c.unit} per tip`;
  if (values.length === 0) {
    const c = candidates.find((x) => x.unit === labelUnit) ?? candidates[0]!;
    return { size: c, note: `no rain rows; assumed ${describe(c)}` };
  }
  let best = candidates[0]!;
  let bestFit = -1;
  for (const c of candidates) {
    let fit = 0;
    for (const v of values) if (near(v, c.tip)) fit++;
    if (fit > bestFit) {
      best = c;
      bestFit = fit;
    }
    if (fit === values.length) break;
  }
  const source = tipMm !== undefined ? ' (tipMm option)' : '';
  let note = `values are whole multiples of ${Number(best.tip.toPrecision(6))}: read as ${unitName(best.unit)}, ${describe(best)}${source}`;
  if (bestFit < values.length)
    note = `${values.length - bestFit} of ${values.length} values are not whole tips of ${describe(best)}${source}`;
  if (labelUnit !== undefined && labelUnit !== best.unit)
    note += `; the units row says "${label}", which the values contradict`;
  else if (labelUnit === undefined) note += `; the units row says "${label}"`;
  return { size: best, note };
}

function parseToa5Raw(lines: string[], o: ResolvedOptions): RawParse {
  if (lines.length < 4) throw new ImportFormatError('TOA5: fewer than the four header lines');
  const env = splitCsv(lines[0]!).map((c) => c.trim());
  if (env[0] !== 'TOA5') throw new ImportFormatError('TOA5: line 1 does not start with "TOA5"');
  const names = splitCsv(lines[1]!).map((c) => c.trim());
  const units = splitCsv(lines[2]!).map((c) => c.trim());
  const proc = splitCsv(lines[3]!).map((c) => c.trim());
  const tsCol = names.indexOf('TIMESTAMP');
  if (tsCol < 0) throw new ImportFormatError('TOA5: no TIMESTAMP column on line 2');
  const recCol = names.indexOf('RECORD');
  let rainCol = names.findIndex((n) => /rain/i.test(n) && /tot/i.test(n));
  if (rainCol < 0) rainCol = names.findIndex((n, i) => /rain|precip/i.test(n) && proc[i] === 'Tot');
  if (rainCol < 0) rainCol = names.findIndex((n) => /rain|precip/i.test(n));
  if (rainCol < 0)
    throw new ImportFormatError(
      `TOA5: no rain total column (like "Rain_mm_Tot") among ${names.map((n) => `"${n}"`).join(', ')}`,
    );
  const skipped: SkippedRow[] = [
    { line: 1, kind: 'header', reason: 'TOA5 file header' },
    { line: 2, kind: 'header', reason: 'field names' },
    { line: 3, kind: 'header', reason: 'units' },
    { line: 4, kind: 'header', reason: 'processing' },
  ];
  const { zone, note } = chooseZone(o);
  const toUtc = makeWallToUtc(zone);
  const rows: Array<{ line: number; ts: number; value: number }> = [];
  let firstRecord: number | undefined;
  let firstRowTs: number | undefined;
  let resolution = 1;
  let lastTs = Number.NEGATIVE_INFINITY;
  let outOfOrder = 0;

  for (let i = 4; i < lines.length; i++) {
    const line = i + 1;
    const raw = lines[i]!;
    if (raw.trim() === '') {
      skipped.push({ line, kind: 'blank', reason: 'empty line' });
      continue;
    }
    const cells = splitCsv(raw);
    const timeText = (cells[tsCol] ?? '').trim();
    const parsed = parseToa5Time(timeText);
    const wallUtc = parsed ? wallTimeAsUtc(parsed.wall) : undefined;
    if (parsed === undefined || wallUtc === undefined) {
      skipped.push({ line, kind: 'bad-row', reason: `unreadable TIMESTAMP "${timeText}"` });
      continue;
    }
    if (firstRecord === undefined && recCol >= 0) {
      const r = Number((cells[recCol] ?? '').trim());
      if (Number.isInteger(r)) firstRecord = r;
    }
    const valueText = (cells[rainCol] ?? '').trim();
    const value = valueText === '' ? Number.NaN : Number(valueText);
    if (!Number.isFinite(value) || value < 0) {
      skipped.push({
        line,
        kind: 'bad-row',
        reason: `${names[rainCol]} "${valueText}" is not a rain amount`,
      });
      continue;
    }
    const ts = toUtc(wallUtc);
    if (ts < lastTs) outOfOrder++;
    lastTs = ts;
    if (firstRowTs === undefined || ts < firstRowTs) firstRowTs = ts;
    resolution = Math.max(resolution, parsed.resolutionMs);
    if (value === 0) {
      skipped.push({ line, kind: 'no-rain', reason: `${names[rainCol]} is 0` });
      continue;
    }
    rows.push({ line, ts, value });
  }

  const unitsLabel = units[rainCol] ?? '';
  const { size, note: tipNote } = decideTipSize(
    rows.map((r) => r.value),
    unitsLabel,
    o.tipMm,
  );
  const tips: Tip[] = [];
  for (const r of rows) {
    if (!near(r.value, size.tip)) {
      skipped.push({
        line: r.line,
        kind: 'bad-row',
        reason: `${names[rainCol]} ${r.value} is not a whole number of ${Number(size.tip.toPrecision(6))} ${size.unit} tips`,
      });
      continue;
    }
    const k = Math.round(r.value / size.tip);
    for (let t = 0; t < k; t++) tips.push({ ts: r.ts, line: r.line });
  }
  const logger = [env[2], env[3] ? `S/N ${env[3]}` : undefined].filter(Boolean).join(' ');
  return {
    tips,
    skipped,
    installationCheck: recCol < 0 || firstRecord === 0,
    outOfOrderRows: outOfOrder,
    firstRowTs,
    meta: {
      format: 'toa5',
      ...(logger ? { logger } : {}),
      ...(env[1] ? { station: env[1] } : {}),
      ...(env[5] ? { program: env[5] } : {}),
      ...(env[7] ? { table: env[7] } : {}),
      timezone: describeZone(zone),
      timezoneNote: note,
      unitsLabel,
      valueUnit: size.unit,
      tipMm: size.tipMm,
      tipNote,
      columns: { time: 'TIMESTAMP', rain: names[rainCol]! },
      timeResolutionMs: resolution === 1 && rows.length === 0 ? 1000 : resolution,
      lines: lines.length,
      counterRestarts: [],
      loggerEvents: [],
    },
  };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** Removes bounced tips: a tip less than bounceMs after the last kept one, from another row. */
export function removeBounces(
  tips: readonly Tip[],
  bounceMs: number,
): { kept: Tip[]; removed: SkippedRow[] } {
  const kept: Tip[] = [];
  const removed: SkippedRow[] = [];
  let last: Tip | undefined;
  for (const tip of tips) {
    if (last !== undefined && tip.line !== last.line && tip.ts - last.ts < bounceMs) {
      removed.push({
        line: tip.line,
        kind: 'bounce',
        reason: `tip ${tip.ts - last.ts} ms after the tip on line ${last.line}: one bounced tip, the first kept`,
      });
      continue;
    }
    kept.push(tip);
    last = tip;
  }
  return { kept, removed };
}

function applyQuirks(raw: RawParse, o: ResolvedOptions): ParseResult {
  const skipped = raw.skipped;
  const sorted = raw.outOfOrderRows > 0 ? [...raw.tips].sort((a, b) => a.ts - b.ts) : raw.tips;

  let tips = sorted;
  let bouncesRemoved = 0;
  let bounceCheck: string;
  if (o.bounceMs === 0) bounceCheck = 'off (bounceMs 0)';
  else if (raw.meta.timeResolutionMs > o.bounceMs)
    bounceCheck = `not possible: times are logged to ${raw.meta.timeResolutionMs / 1000} s, tips in the same step are kept`;
  else {
    const b = removeBounces(tips, o.bounceMs);
    tips = b.kept;
    bouncesRemoved = b.removed.length;
    skipped.push(...b.removed);
    bounceCheck = `applied: tips less than ${o.bounceMs} ms after the previous one removed`;
  }

  let installationTips = 0;
  if (o.skipBefore !== undefined) {
    const cut = typeof o.skipBefore === 'number' ? o.skipBefore : Date.parse(o.skipBefore);
    const keep: Tip[] = [];
    for (const t of tips) {
      if (t.ts < cut) {
        installationTips++;
        skipped.push({ line: t.line, kind: 'before-start', reason: `before skipBefore ${iso(cut)}` });
      } else keep.push(t);
    }
    tips = keep;
  } else if (o.installationGapHours > 0 && raw.installationCheck && tips.length >= 2) {
    const gap = tips[1]!.ts - tips[0]!.ts;
    if (gap > o.installationGapHours * 3_600_000) {
      installationTips = 1;
      skipped.push({
        line: tips[0]!.line,
        kind: 'installation',
        reason: `first tip, followed by ${(gap / 3_600_000).toFixed(1)} h without a tip: installation`,
      });
      tips = tips.slice(1);
    }
  }

  let downloadTips = 0;
  const events = [...raw.meta.loggerEvents].sort((a, b) => a.ts - b.ts);
  if (o.downloadWindowMinutes > 0 && events.length > 0) {
    const w = o.downloadWindowMinutes * 60_000;
    const keep: Tip[] = [];
    let j = 0;
    for (const t of tips) {
      while (j < events.length && events[j]!.ts < t.ts - w) j++;
      const ev = events[j];
      if (ev !== undefined && ev.ts <= t.ts + w) {
        downloadTips++;
        skipped.push({
          line: t.line,
          kind: 'download',
          reason: `tip within ${o.downloadWindowMinutes} min of the logger event on line ${ev.line} (${ev.what}): gauge handled at download`,
        });
      } else keep.push(t);
    }
    tips = keep;
  }

  skipped.sort((a, b) => a.line - b.line);
  return {
    tips,
    skipped,
    meta: {
      ...raw.meta,
      rawTips: raw.tips.length,
      bouncesRemoved,
      bounceCheck,
      installationTips,
      downloadTips,
      outOfOrderRows: raw.outOfOrderRows,
      ...(raw.firstRowTs !== undefined ? { firstRowTs: raw.firstRowTs } : {}),
    },
  };
}

export function resolveParseOptions(opts: ParseOptions = {}): ResolvedOptions {
  const r = parseOptionsSchema.safeParse(opts);
  if (!r.success)
    throw new ImportFormatError(
      `bad import options: ${r.error.issues.map((i) => `${i.path.join('.') || '(options)'}: ${i.message}`).join('; ')}`,
    );
  return r.data;
}

export function parseHoboCsv(text: string, opts: ParseOptions = {}): ParseResult {
  const o = resolveParseOptions(opts);
  return applyQuirks(parseHoboRaw(splitLines(text), o), o);
}

export function parseToa5(text: string, opts: ParseOptions = {}): ParseResult {
  const o = resolveParseOptions(opts);
  return applyQuirks(parseToa5Raw(splitLines(text), o), o);
}

/** Detects the format (unless opts.format is given) and parses. */
export function parseLoggerFile(text: string, opts: ParseOptions = {}): ParseResult {
  const format = opts.format ?? detectFormat(text);
  return format === 'toa5' ? parseToa5(text, opts) : parseHoboCsv(text, opts);
}
