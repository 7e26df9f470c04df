/**
 * What reading a logger file takes and gives: the options, the tips with the rows that gave none
 * (each with its line and a reason), and what was learnt about the file.
 */
import { z } from 'zod';

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
export type ResolvedOptions = z.output<typeof parseOptionsSchema>;

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

/** What a format's row reader gives, before the quirk steps (quirks.ts). */
export interface RawParse {
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

export class ImportFormatError extends Error {
  override name = 'ImportFormatError';
}

export function resolveParseOptions(opts: ParseOptions = {}): ResolvedOptions {
  const r = parseOptionsSchema.safeParse(opts);
  if (!r.success)
    throw new ImportFormatError(
      `bad import options: ${r.error.issues.map((i) => `${i.path.join('.') || '(options)'}: ${i.message}`).join('; ')}`,
    );
  return r.data;
}

/**
 * The most tips one file may hold: a 4 MiB upload of absurd rain amounts would otherwise be millions of
 * tips in memory. Larger records are imported in parts.
 */
export const MAX_TIPS_PER_FILE = 500_000;

/** Adds `k` tips at `ts` from `line`; refuses a file that goes past MAX_TIPS_PER_FILE. */
export function pushTips(tips: Tip[], k: number, ts: number, line: number): void {
  if (tips.length + k > MAX_TIPS_PER_FILE)
    throw new ImportFormatError(
      `line ${line}: the file holds more than ${MAX_TIPS_PER_FILE} tips; split it and import the parts in order`,
    );
  for (let t = 0; t < k; t++) tips.push({ ts, line });
}
