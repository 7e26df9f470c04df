/**
 * Imports one logger file: parse, convert to cumulative-counter Readings, hand them to a sink in
 * chunks, and summarise.
 *
 * What the caller (the import CLI) must provide:
 *  - a sink that stores validated readings and feeds them to the rules, in the order given, and treats
 *    a reading with the same device and seq, or the same source timestamp, as a duplicate: a second
 *    import of the same file is then a no-op;
 *  - siteId and deviceId of a registered rain gauge (deviceKind 'rain-gauge');
 *  - tipMm from the device's configured calibration (inchesPerTip x 25.4), so that a TOA5 file is read
 *    in the gauge's real tip size rather than one guessed from its values;
 *  - the logger's clock zone when the file has none (utcOffsetMinutes or timeZone; default UTC);
 *  - for a device's second and later files, startCount = the previous summary's endCount and
 *    startSeq = its nextSeq: otherwise the new file's seq values repeat the old ones and are taken as
 *    duplicates, and its counter restarts from 0.
 * The readings carry `rainTips` only; the rules convert tips to inches once, with the device calibration.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Reading, RejectReason } from '../../../shared/src/telemetry.ts';
import { parseLoggerFileSliced } from './formats/index.ts';
import { yieldToLoop } from './steps.ts';
import { readingChunks } from './toReadings.ts';
import type { LoggerFormat, ParseMeta, ParseOptions, SkipKind, SkippedRow } from './types.ts';

export interface ReadingSink {
  ingestReadings(readings: Reading[]): Promise<{
    stored: number;
    duplicates: number;
    /** Readings the sink refused (a time ahead of its clock, an impossible counter jump), by reason. */
    rejected?: number;
    rejectedByReason?: Partial<Record<RejectReason, number>>;
  }>;
}

export interface ImportOptions extends Omit<ParseOptions, 'format'> {
  siteId: string;
  deviceId: string;
  format?: LoggerFormat;
  /** Counter value before the file's first tip (default 0). */
  startCount?: number;
  /** seq of the first reading (default 0). */
  startSeq?: number;
  /**
   * Emit a baseline reading (rainTips = startCount) before the first tip, at the file's first row when
   * that is earlier than the first tip, else one second before it. Default: true when startCount is
   * not given (a device's first file), false otherwise (the previous file's last reading is the base).
   */
  baseline?: boolean;
  /**
   * Readings per sink call. Each call is stored and evaluated in one go and the event loop gets its turn
   * between calls; by default the size adapts so that one call takes about SINK_CALL_MS, so a large file
   * never holds the gateway up for long.
   */
  chunkSize?: number;
  now?: () => number;
}

export interface ImportSummary {
  file: string;
  format: LoggerFormat;
  siteId: string;
  deviceId: string;
  /** Lines in the file, headers included. */
  lines: number;
  /** Lines after the header lines. */
  rows: number;
  /** Tips read from the rows before the quirk steps. */
  rawTips: number;
  /** Tips imported (after bounce, installation and download removal). */
  tips: number;
  bouncesRemoved: number;
  installationTips: number;
  downloadTips: number;
  /** Rows without a tip and removed tips, by kind. */
  skippedByReason: Partial<Record<SkipKind, number>>;
  /** Rows that could not be read (bad date, bad value), with line and reason. */
  problems: SkippedRow[];
  firstTip: string | null;
  lastTip: string | null;
  /** Time of the baseline reading (rainTips = startCount), when one was emitted. */
  baselineAt: string | null;
  /** Tip size and totals when the file or the tipMm option gives the tip size. */
  tipMm?: number;
  totalMm?: number;
  totalIn?: number;
  readings: number;
  stored: number;
  duplicates: number;
  /** Readings refused by the gateway (a source time ahead of its clock, an impossible counter jump). */
  rejected: number;
  rejectedByReason: Partial<Record<RejectReason, number>>;
  /** Counter after the last reading: pass it as startCount when importing this device's next file. */
  endCount: number;
  /** seq after the last reading: pass it as startSeq when importing this device's next file. */
  nextSeq: number;
  meta: ParseMeta;
}

/** How long one sink call (store and evaluate) should take, at most about. */
const SINK_CALL_MS = 15;

/** The next chunk's size: halved after a slow call, doubled after a quick one (1 to 2000). */
function nextSize(size: number, ms: number): number {
  if (ms > SINK_CALL_MS) return Math.max(1, Math.floor(size / 2));
  if (ms < SINK_CALL_MS / 4) return Math.min(2000, size * 2);
  return size;
}

export async function importFile(
  path: string,
  opts: ImportOptions,
  sink: ReadingSink,
): Promise<ImportSummary> {
  return importText(await readFile(path, 'utf8'), path, opts, sink);
}

/** The same as importFile, for a file's text already in memory (an upload); `path` names it in messages. */
export async function importText(
  text: string,
  path: string,
  opts: ImportOptions,
  sink: ReadingSink,
): Promise<ImportSummary> {
  const { siteId, deviceId, startCount, startSeq, baseline, chunkSize, now, ...parseOpts } = opts;
  if (chunkSize !== undefined && (!Number.isInteger(chunkSize) || chunkSize < 1))
    throw new RangeError('chunkSize must be an integer >= 1');
  let size = chunkSize ?? 50;
  const parsed = await parseLoggerFileSliced(text, parseOpts);
  const firstTs = parsed.tips[0]?.ts;
  const fileStart = parsed.meta.firstRowTs;
  const baselineTs =
    (baseline ?? startCount === undefined) && firstTs !== undefined
      ? fileStart !== undefined && fileStart < firstTs
        ? fileStart
        : firstTs - 1000
      : undefined;
  const chunks = readingChunks(
    parsed.tips,
    {
      siteId,
      deviceId,
      ...(baselineTs !== undefined ? { baselineTs } : {}),
      ...(startCount !== undefined ? { startCount } : {}),
      ...(startSeq !== undefined ? { startSeq } : {}),
      ...(now !== undefined ? { now } : {}),
    },
    () => size,
  );

  // One reading per distinct tip time, and the baseline.
  let total = baselineTs !== undefined ? 1 : 0;
  for (let k = 0; k < parsed.tips.length; k++)
    if (k === 0 || parsed.tips[k]!.ts !== parsed.tips[k - 1]!.ts) total++;
  let made = 0;
  let endCount: number | undefined;
  let stored = 0;
  let duplicates = 0;
  let rejected = 0;
  const rejectedByReason: Partial<Record<RejectReason, number>> = {};
  for (const chunk of chunks) {
    const i = made;
    made += chunk.length;
    endCount = chunk.at(-1)?.values.rainTips;
    try {
      await yieldToLoop();
      const started = performance.now();
      const r = await sink.ingestReadings(chunk);
      if (chunkSize === undefined) size = nextSize(size, performance.now() - started);
      stored += r.stored;
      duplicates += r.duplicates;
      rejected += r.rejected ?? 0;
      for (const [k, n] of Object.entries(r.rejectedByReason ?? {}))
        rejectedByReason[k as RejectReason] = (rejectedByReason[k as RejectReason] ?? 0) + (n ?? 0);
    } catch (err) {
      throw new Error(
        `${basename(path)}: the sink failed at reading ${i} of ${total} (${stored} stored so far; importing the file again is safe): ${(err as Error).message}`,
        { cause: err },
      );
    }
  }

  const skippedByReason: Partial<Record<SkipKind, number>> = {};
  for (const s of parsed.skipped) skippedByReason[s.kind] = (skippedByReason[s.kind] ?? 0) + 1;
  const first = parsed.tips[0];
  const last = parsed.tips.at(-1);
  const tipMm = parsed.meta.tipMm;
  return {
    file: path,
    format: parsed.meta.format,
    siteId,
    deviceId,
    lines: parsed.meta.lines,
    rows: parsed.meta.lines - (skippedByReason.header ?? 0),
    rawTips: parsed.meta.rawTips,
    tips: parsed.tips.length,
    bouncesRemoved: parsed.meta.bouncesRemoved,
    installationTips: parsed.meta.installationTips,
    downloadTips: parsed.meta.downloadTips,
    skippedByReason,
    problems: parsed.skipped.filter((s) => s.kind === 'bad-row'),
    firstTip: first ? new Date(first.ts).toISOString() : null,
    lastTip: last ? new Date(last.ts).toISOString() : null,
    baselineAt: baselineTs !== undefined ? new Date(baselineTs).toISOString() : null,
    ...(tipMm !== undefined
      ? {
          tipMm,
          totalMm: Math.round(parsed.tips.length * tipMm * 1000) / 1000,
          totalIn: Math.round(((parsed.tips.length * tipMm) / 25.4) * 10000) / 10000,
        }
      : {}),
    readings: made,
    stored,
    duplicates,
    rejected,
    rejectedByReason,
    endCount: endCount ?? startCount ?? 0,
    nextSeq: (startSeq ?? 0) + made,
    meta: parsed.meta,
  };
}
