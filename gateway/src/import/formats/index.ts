/**
 * The logger file formats and the choice between them: detectFormat looks at the first lines,
 * parseLoggerFile reads the file with the detected (or the given) format and applies the quirk steps.
 */
import { splitLines } from '../csv.ts';
import { parseWithQuirks, parseWithQuirksSliced } from '../quirks.ts';
import type { Stepped } from '../steps.ts';
import {
  ImportFormatError,
  type LoggerFormat,
  type ParseOptions,
  type ParseResult,
  type RawParse,
  type ResolvedOptions,
} from '../types.ts';
import { hoboRowSteps, looksLikeHobo, readHoboRows } from './hobo.ts';
import { looksLikeToa5, readToa5Rows, toa5RowSteps } from './toa5.ts';

export { parseHoboCsv, parseHoboTime } from './hobo.ts';
export { parseToa5, parseToa5Time } from './toa5.ts';

interface Format {
  format: LoggerFormat;
  /** Whether the file's first lines (from the first non-blank one, up to five) are in this format. */
  detect(head: readonly string[]): boolean;
  readRows(lines: string[], o: ResolvedOptions): RawParse;
  /** The same, pausing between slices of rows. */
  rowSteps(lines: string[], o: ResolvedOptions): Stepped<RawParse>;
}

/** In the order detection tries them. */
const FORMATS: readonly Format[] = [
  { format: 'toa5', detect: looksLikeToa5, readRows: readToa5Rows, rowSteps: toa5RowSteps },
  { format: 'hobo-csv', detect: looksLikeHobo, readRows: readHoboRows, rowSteps: hoboRowSteps },
];

/** 'toa5' for a Campbell TOA5 table, 'hobo-csv' for a HOBO export; throws ImportFormatError otherwise. */
export function detectFormat(text: string): LoggerFormat {
  const lines = splitLines(text.slice(0, 8192));
  const first = lines.findIndex((l) => l.trim() !== '');
  if (first < 0) throw new ImportFormatError('the file is empty');
  const head = lines.slice(first, first + 5);
  const found = FORMATS.find((f) => f.detect(head));
  if (found) return found.format;
  throw new ImportFormatError(
    `unrecognised logger file: line ${first + 1} is neither a TOA5 header nor a HOBO export ("${lines[first]!.slice(0, 80)}")`,
  );
}

/** The format a file is read with: the option's, else the detected one. */
function formatOf(o: ResolvedOptions, detected: LoggerFormat): Format {
  const f = FORMATS.find((x) => x.format === (o.format ?? detected));
  if (!f) throw new ImportFormatError(`unknown logger format "${o.format ?? detected}"`);
  return f;
}

/** Detects the format (unless opts.format is given) and parses. */
export function parseLoggerFile(text: string, opts: ParseOptions = {}): ParseResult {
  const format = opts.format ?? detectFormat(text);
  // The options are checked first (an unknown format among them is refused there), then read.
  return parseWithQuirks(text, opts, (lines, o) => formatOf(o, format).readRows(lines, o));
}

/** parseLoggerFile giving the event loop back between slices of rows (an upload into the running gateway). */
export function parseLoggerFileSliced(text: string, opts: ParseOptions = {}): Promise<ParseResult> {
  const format = opts.format ?? detectFormat(text);
  return parseWithQuirksSliced(text, opts, (lines, o) => formatOf(o, format).rowSteps(lines, o));
}
