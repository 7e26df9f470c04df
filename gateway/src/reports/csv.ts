/**
 * CSV cells for the reports (RFC 4180), safe to open in a spreadsheet: a cell that starts with `=`, `+`,
 * `-`, `@`, a tab or a carriage return could be taken for a formula (`=HYPERLINK(...)`), so, as OWASP
 * recommends against CSV injection, it gets a leading apostrophe inside a quoted cell; a cell holding a
 * quote, a comma or a line break is quoted, its quotes doubled.
 */

/** The characters a spreadsheet may read as the start of a formula. */
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(v: unknown): string {
  const s = v === null || v === undefined ? '' : String(v);
  if (FORMULA_START.test(s)) return `"'${s.replace(/"/g, '""')}"`;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Rows of cells as CSV text, CRLF line ends. */
export function csvText(rows: ReadonlyArray<readonly unknown[]>): string {
  return `${rows.map((cols) => cols.map(csvCell).join(',')).join('\r\n')}\r\n`;
}
