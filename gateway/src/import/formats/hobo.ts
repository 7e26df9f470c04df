/**
 * Onset HOBO event-logger CSV exports (HOBOware): a cumulative event count per row.
 *
 * Layout: optional title lines, then a column header with `Date Time, GMT-08:00` (or separate `Date`
 * and `Time` columns), the event count (`Ext. Line Event` or a count/tip/rain column), other sensors
 * (temperature) and logger event columns (Coupler Attached, Host Connected, Stopped, End Of File, …).
 * A headerless export is `date, count` per line. Dates are `MM/DD/YYYY H:MM[:SS[.fff]] [AM|PM]` (or a
 * two-digit year) or ISO; the zone comes from the options, else the header's `GMT±hh:mm`, else UTC.
 *
 * Per row: a count increase of k is k tips at the row's time; an empty count with a logger event, or
 * with no values at all, is a logger event (download, launch, stop: see quirks.ts, download step);
 * other sensor values only are no tip; a drop in the count is a counter restart.
 */
import { cellAt, dataRows, trimmedCells } from '../csv.ts';
import { CumulativeCount, parseWithQuirks, RowClock } from '../quirks.ts';
import { ROWS_PER_STEP, runToEnd, type Stepped } from '../steps.ts';
import { chooseZone, describeZone, fraction, type ParsedTime, parseIsoTime, timeReader } from '../time.ts';
import type {
  LoggerEvent,
  ParseOptions,
  ParseResult,
  RawParse,
  ResolvedOptions,
  SkippedRow,
  Tip,
} from '../types.ts';
import { ImportFormatError, pushTips } from '../types.ts';

const US_DATE =
  /^(\d{1,2})\/(\d{1,2})\/(\d{4}|\d{2})[ T]+(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(?:\s*([AaPp])\.?[Mm]\.?)?$/;

/** HOBO dates: MM/DD/YYYY (or YY) H:MM[:SS[.fff]] [AM|PM], or ISO `YYYY-MM-DD HH:MM[:SS]`. */
export function parseHoboTime(s: string): ParsedTime | undefined {
  const m = US_DATE.exec(s);
  if (!m) return parseIsoTime(s);
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

const hasDateCell = (cells: readonly string[]) => cells.some((c) => /^date\b/i.test(c));

/** Whether the first lines (from the first non-blank one) are a HOBO export: a date header or a date. */
export function looksLikeHobo(head: readonly string[]): boolean {
  return head.some((line) => {
    const c = trimmedCells(line);
    return hasDateCell(c) || (c[0] !== undefined && parseHoboTime(c[0]) !== undefined);
  });
}

const EVENT_COLUMN =
  /coupler|host connect|stopped|end of file|battery|button|started|^logged|^launch|detached|connected/i;

/** Where a HOBO export keeps what, from its column header (or the headerless default). */
interface HoboLayout {
  /** Index of the first data line. */
  start: number;
  timeCol: number;
  /** A separate date column (then timeCol holds the time of day), or -1. */
  dateOnlyCol: number;
  countCol: number;
  eventCols: Array<{ col: number; name: string }>;
  /** Other sensors' columns (a row with only these is no tip). */
  valueCols: number[];
  timeLabel: string;
  countLabel: string;
  fileZone?: { minutes: number; label: string };
  logger?: string;
}

function headerlessLayout(start: number): HoboLayout {
  return {
    start,
    timeCol: 0,
    dateOnlyCol: -1,
    countCol: 1,
    eventCols: [],
    valueCols: [],
    timeLabel: 'column 1',
    countLabel: 'column 2 (cumulative count)',
  };
}

/** Reads the column header at `header`, recording the title and header lines as skipped. */
function headerLayout(
  lines: readonly string[],
  start: number,
  header: number,
  skipped: SkippedRow[],
): HoboLayout {
  for (let i = start; i < header; i++) skipped.push({ line: i + 1, kind: 'header', reason: 'title line' });
  skipped.push({ line: header + 1, kind: 'header', reason: 'column header' });
  const names = trimmedCells(lines[header]!);
  let dateOnlyCol = -1;
  let timeCol = names.findIndex((n) => /^date\s*time/i.test(n));
  if (timeCol < 0) {
    dateOnlyCol = names.findIndex((n) => /^date\b/i.test(n));
    timeCol = names.findIndex((n) => /^time\b/i.test(n));
    if (dateOnlyCol < 0 || timeCol < 0)
      throw new ImportFormatError(`HOBO export: no date-time column in line ${header + 1}`);
  }
  const zoneText = dateOnlyCol >= 0 ? `${names[dateOnlyCol]} ${names[timeCol]}` : names[timeCol]!;
  const zm = /GMT\s*([+-])\s*(\d{1,2})(?::?(\d{2}))?/i.exec(zoneText);
  const fileZone = zm
    ? { minutes: (zm[1] === '-' ? -1 : 1) * (Number(zm[2]) * 60 + Number(zm[3] ?? 0)), label: zm[0] }
    : undefined;
  const eventCols = names
    .map((name, col) => ({ col, name }))
    .filter((c) => EVENT_COLUMN.test(c.name) && c.col !== timeCol && c.col !== dateOnlyCol);
  const isEvent = (col: number) => eventCols.some((e) => e.col === col);
  let countCol = names.findIndex((n, col) => /event/i.test(n) && !isEvent(col));
  if (countCol < 0) countCol = names.findIndex((n, col) => /count|tip|rain/i.test(n) && !isEvent(col));
  if (countCol < 0)
    throw new ImportFormatError(
      `HOBO export: no event-count column among ${names.map((n) => `"${n}"`).join(', ')}`,
    );
  const countLabel = names[countCol]!;
  const valueCols = names
    .map((n, col) => ({ n, col }))
    .filter(
      ({ n, col }) =>
        n !== '' && n !== '#' && col !== timeCol && col !== dateOnlyCol && col !== countCol && !isEvent(col),
    )
    .map(({ col }) => col);
  const sn = /LGR S\/N:\s*(\d+)/.exec(countLabel);
  return {
    start: header + 1,
    timeCol,
    dateOnlyCol,
    countCol,
    eventCols,
    valueCols,
    timeLabel: names[timeCol]!,
    countLabel,
    ...(fileZone ? { fileZone } : {}),
    ...(sn ? { logger: `HOBO S/N ${sn[1]}` } : {}),
  };
}

function readLayout(lines: readonly string[], skipped: SkippedRow[]): HoboLayout {
  const start = lines.findIndex((l) => l.trim() !== '');
  if (start < 0) throw new ImportFormatError('the file is empty');
  if (parseHoboTime(trimmedCells(lines[start]!)[0] ?? '') !== undefined) return headerlessLayout(start);
  let header = -1;
  for (let i = start; i < Math.min(lines.length, start + 5); i++) {
    if (hasDateCell(trimmedCells(lines[i]!))) {
      header = i;
      break;
    }
  }
  if (header < 0) throw new ImportFormatError('HOBO export: no "Date Time" header and no date in column 1');
  return headerLayout(lines, start, header, skipped);
}

/** Why a row whose count did not increase gives no tip. */
function noTipReason(events: string[], n: number, anyCount: boolean, restarted: boolean): string {
  if (events.length > 0) return `logger event: ${events.join(', ')} (count ${n} unchanged)`;
  if (!anyCount && n === 0) return 'count 0 at start: logger launch, no tip';
  if (restarted) return 'counter restarted at 0';
  return `count ${n} repeats the previous count: no tip`;
}

/** The rows of a HOBO export as raw tips, before the quirk steps. */
export function readHoboRows(lines: string[], o: ResolvedOptions): RawParse {
  return runToEnd(hoboRowSteps(lines, o));
}

/** The same, pausing every ROWS_PER_STEP rows (see steps.ts). */
export function* hoboRowSteps(lines: string[], o: ResolvedOptions): Stepped<RawParse> {
  const skipped: SkippedRow[] = [];
  const tips: Tip[] = [];
  const layout = readLayout(lines, skipped);
  const { timeCol, dateOnlyCol, countCol, eventCols, valueCols } = layout;
  const { zone, note } = chooseZone(o, layout.fileZone);
  const readTime = timeReader(zone, parseHoboTime);
  const loggerEvents: LoggerEvent[] = [];
  const count = new CumulativeCount();
  const clock = new RowClock();
  let anyCount = false;
  let resolution = 1;

  for (const { line, cells } of dataRows(lines, layout.start, skipped)) {
    if (line % ROWS_PER_STEP === 0) yield;
    const timeText =
      dateOnlyCol >= 0 ? `${cellAt(cells, dateOnlyCol)} ${cellAt(cells, timeCol)}` : cellAt(cells, timeCol);
    const time = readTime(timeText);
    if (time === undefined) {
      skipped.push({ line, kind: 'bad-row', reason: `unreadable date "${timeText}"` });
      continue;
    }
    const { ts } = time;
    clock.see(ts);
    const events = eventCols.filter((e) => cellAt(cells, e.col) !== '').map((e) => e.name);
    const countText = cellAt(cells, countCol);
    if (events.length > 0) loggerEvents.push({ line, ts, what: events.join(', ') });

    if (countText === '') {
      if (events.length > 0) {
        skipped.push({ line, kind: 'logger-event', reason: `logger event: ${events.join(', ')}` });
      } else if (valueCols.some((c) => cellAt(cells, c) !== '')) {
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
    resolution = Math.max(resolution, time.resolutionMs);
    const k = count.add(line, n);
    if (k === 0) {
      const why = noTipReason(events, n, anyCount, count.restartedAt(line));
      skipped.push({ line, kind: events.length > 0 ? 'logger-event' : 'no-increase', reason: why });
    }
    anyCount = true;
    pushTips(tips, k, ts, line);
  }

  return {
    tips,
    skipped,
    installationCheck: true,
    outOfOrderRows: clock.outOfOrderRows,
    firstRowTs: clock.firstRowTs,
    meta: {
      format: 'hobo-csv',
      ...(layout.logger !== undefined ? { logger: layout.logger } : {}),
      timezone: describeZone(zone),
      timezoneNote: note,
      unitsLabel: layout.countLabel,
      valueUnit: 'count',
      ...(o.tipMm !== undefined ? { tipMm: o.tipMm } : {}),
      tipNote:
        o.tipMm !== undefined
          ? `${o.tipMm} mm per tip (tipMm option)`
          : 'a HOBO event count does not give the tip size: take it from the device configuration',
      columns: { time: layout.timeLabel, rain: layout.countLabel },
      timeResolutionMs: resolution === 1 && tips.length === 0 ? 1000 : resolution,
      lines: lines.length,
      counterRestarts: count.restarts,
      loggerEvents,
    },
  };
}

export function parseHoboCsv(text: string, opts: ParseOptions = {}): ParseResult {
  return parseWithQuirks(text, opts, readHoboRows);
}
