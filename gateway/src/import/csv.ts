/**
 * CSV reading for logger files: lines split on LF or CRLF (a last empty line dropped), a leading UTF-8
 * byte-order mark removed, cells split on commas with double quotes grouping commas and `""` inside
 * quotes standing for a quote.
 */
import type { SkippedRow } from './types.ts';

const BOM = '\uFEFF';

/** The file's lines, without line ends and without a byte-order mark. */
export function splitLines(text: string): string[] {
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

/** One CSV line to cells without surrounding spaces. */
export function trimmedCells(line: string): string[] {
  return splitCsv(line).map((c) => c.trim());
}

/** The cell at `col`, trimmed; '' when the row is shorter. */
export function cellAt(cells: readonly string[], col: number): string {
  return (cells[col] ?? '').trim();
}

/**
 * The data rows from index `from` on, as 1-based line number and cells (not trimmed). Each blank line
 * is recorded in `skipped` instead.
 */
export function* dataRows(
  lines: readonly string[],
  from: number,
  skipped: SkippedRow[],
): Generator<{ line: number; cells: string[] }> {
  for (let i = from; i < lines.length; i++) {
    const raw = lines[i]!;
    if (raw.trim() === '') {
      skipped.push({ line: i + 1, kind: 'blank', reason: 'empty line' });
      continue;
    }
    yield { line: i + 1, cells: splitCsv(raw) };
  }
}
