/**
 * Campbell Scientific TOA5 tables (LoggerNet `.dat`): rain per scan.
 *
 * Layout: four header lines (file environment: `"TOA5",station,logger model,serial,OS,program,
 * signature,table`; field names; units; processing), then one row per record with `TIMESTAMP`
 * (`YYYY-MM-DD HH:MM:SS[.fff]`, no zone: UTC unless the options give one) and usually `RECORD`.
 * The rain column is the first named like rain and total (`Rain_mm_Tot`), else a rain/precip column
 * processed as `Tot`, else any rain/precip column. A row's value is a whole number of tips, with the
 * tip size taken from the values (see quirks.ts, mislabelled units). Binary Campbell files (TOB1,
 * TOB3, TOACI1) are refused with the advice to export as TOA5.
 */
import { cellAt, dataRows, trimmedCells } from '../csv.ts';
import { decideTipSize, parseWithQuirks, RowClock, wholeTips } from '../quirks.ts';
import { ROWS_PER_STEP, runToEnd, type Stepped } from '../steps.ts';
import { chooseZone, describeZone, type ParsedTime, parseIsoTime, timeReader } from '../time.ts';
import type { ParseOptions, ParseResult, RawParse, ResolvedOptions, SkippedRow, Tip } from '../types.ts';
import { ImportFormatError, pushTips } from '../types.ts';

/** TOA5 TIMESTAMP: `YYYY-MM-DD HH:MM:SS[.fff]`. */
export function parseToa5Time(s: string): ParsedTime | undefined {
  return parseIsoTime(s);
}

const BINARY_TABLES = ['TOB1', 'TOB3', 'TOACI1'];

/**
 * Whether the first lines (from the first non-blank one) are a TOA5 table. Throws ImportFormatError
 * for a binary Campbell table.
 */
export function looksLikeToa5(head: readonly string[]): boolean {
  const first = trimmedCells(head[0] ?? '')[0] ?? '';
  if (first === 'TOA5') return true;
  if (BINARY_TABLES.includes(first))
    throw new ImportFormatError(`Campbell ${first} files are not supported: export the table as TOA5`);
  return false;
}

function rainColumn(names: readonly string[], proc: readonly string[]): number {
  let rainCol = names.findIndex((n) => /rain/i.test(n) && /tot/i.test(n));
  if (rainCol < 0) rainCol = names.findIndex((n, i) => /rain|precip/i.test(n) && proc[i] === 'Tot');
  if (rainCol < 0) rainCol = names.findIndex((n) => /rain|precip/i.test(n));
  if (rainCol < 0)
    throw new ImportFormatError(
      `TOA5: no rain total column (like "Rain_mm_Tot") among ${names.map((n) => `"${n}"`).join(', ')}`,
    );
  return rainCol;
}

/** The rows of a TOA5 table as raw tips, before the quirk steps. */
export function readToa5Rows(lines: string[], o: ResolvedOptions): RawParse {
  return runToEnd(toa5RowSteps(lines, o));
}

/** The same, pausing every ROWS_PER_STEP rows (see steps.ts). */
export function* toa5RowSteps(lines: string[], o: ResolvedOptions): Stepped<RawParse> {
  if (lines.length < 4) throw new ImportFormatError('TOA5: fewer than the four header lines');
  const env = trimmedCells(lines[0]!);
  if (env[0] !== 'TOA5') throw new ImportFormatError('TOA5: line 1 does not start with "TOA5"');
  const names = trimmedCells(lines[1]!);
  const units = trimmedCells(lines[2]!);
  const proc = trimmedCells(lines[3]!);
  const tsCol = names.indexOf('TIMESTAMP');
  if (tsCol < 0) throw new ImportFormatError('TOA5: no TIMESTAMP column on line 2');
  const recCol = names.indexOf('RECORD');
  const rainCol = rainColumn(names, proc);
  const rainName = names[rainCol]!;
  const skipped: SkippedRow[] = [
    { line: 1, kind: 'header', reason: 'TOA5 file header' },
    { line: 2, kind: 'header', reason: 'field names' },
    { line: 3, kind: 'header', reason: 'units' },
    { line: 4, kind: 'header', reason: 'processing' },
  ];
  const { zone, note } = chooseZone(o);
  const readTime = timeReader(zone, parseToa5Time);
  const rows: Array<{ line: number; ts: number; value: number }> = [];
  const clock = new RowClock();
  let firstRecord: number | undefined;
  let resolution = 1;

  for (const { line, cells } of dataRows(lines, 4, skipped)) {
    if (line % ROWS_PER_STEP === 0) yield;
    const timeText = cellAt(cells, tsCol);
    const time = readTime(timeText);
    if (time === undefined) {
      skipped.push({ line, kind: 'bad-row', reason: `unreadable TIMESTAMP "${timeText}"` });
      continue;
    }
    if (firstRecord === undefined && recCol >= 0) {
      const r = Number(cellAt(cells, recCol));
      if (Number.isInteger(r)) firstRecord = r;
    }
    const valueText = cellAt(cells, rainCol);
    const value = valueText === '' ? Number.NaN : Number(valueText);
    if (!Number.isFinite(value) || value < 0) {
      skipped.push({ line, kind: 'bad-row', reason: `${rainName} "${valueText}" is not a rain amount` });
      continue;
    }
    const { ts } = time;
    clock.see(ts);
    resolution = Math.max(resolution, time.resolutionMs);
    if (value === 0) {
      skipped.push({ line, kind: 'no-rain', reason: `${rainName} is 0` });
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
    if (!wholeTips(r.value, size.tip)) {
      skipped.push({
        line: r.line,
        kind: 'bad-row',
        reason: `${rainName} ${r.value} is not a whole number of ${Number(size.tip.toPrecision(6))} ${size.unit} tips`,
      });
      continue;
    }
    const k = Math.round(r.value / size.tip);
    pushTips(tips, k, r.ts, r.line);
  }
  const logger = [env[2], env[3] ? `S/N ${env[3]}` : undefined].filter(Boolean).join(' ');
  return {
    tips,
    skipped,
    installationCheck: recCol < 0 || firstRecord === 0,
    outOfOrderRows: clock.outOfOrderRows,
    firstRowTs: clock.firstRowTs,
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
      columns: { time: 'TIMESTAMP', rain: rainName },
      timeResolutionMs: resolution === 1 && rows.length === 0 ? 1000 : resolution,
      lines: lines.length,
      counterRestarts: [],
      loggerEvents: [],
    },
  };
}

export function parseToa5(text: string, opts: ParseOptions = {}): ParseResult {
  return parseWithQuirks(text, opts, readToa5Rows);
}
