/**
 * The logger file formats and the choice between them: detectFormat looks at the first lines,
 * parseLoggerFile reads the file with the detected (or the given) format and applies the quirk steps.
 */
import { splitLines } from '../csv.ts';
import { parseWithQuirks } from '../quirks.ts';
import {
  ImportFormatError,
  type LoggerFormat,
  type ParseOptions,
  type ParseResult,
  type RawParse,
  type ResolvedOptions,
} from '../types.ts';
import { looksLikeHobo, readHoboRows } from './hobo.ts';
import { looksLikeToa5, readToa5Rows } from './toa5.ts';

export { parseHoboCsv, parseHoboTime } from './hobo.ts';
export { parseToa5, parseToa5Time } from './toa5.ts';

interface Format {
  format: LoggerFormat;
  /** Whether the file's first lines (from the first non-blank one, up to five) are in this format. */
  detect(head: readonly string[]): boolean;
  readRows(lines: string[], o: ResolvedOptions): RawParse;
}

/** In the order detection tries them. */
const FORMATS: readonly Format[] = [
  { format: 'toa5', detect: looksLikeToa5, readRows: readToa5Rows },
  { format: 'hobo-csv', detect: looksLikeHobo, readRows: readHoboRows },
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

/** Detects the format (unless opts.format is given) and parses. */
export function parseLoggerFile(text: string, opts: ParseOptions = {}): ParseResult {
  const format = opts.format ?? detectFormat(text);
  // The options are checked first (an unknown format among them is refused there), then read.
  return parseWithQuirks(text, opts, (lines, o) => {
    const f = FORMATS.find((x) => x.format === (o.format ?? format));
    if (!f) throw new ImportFormatError(`unknown logger format "${format}"`);
    return f.readRows(lines, o);
  });
}
