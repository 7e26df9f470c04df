/**
 * The compliance report as CSV: one row per item with the section it belongs to, each section of
 * `sections/index.ts` in turn (the summary with its labels first, the signature block last), then the
 * checkpoint. A cell that a spreadsheet would read as a formula (starting with
 * =, +, -, @, a tab or a carriage return) is neutralised as OWASP recommends: quoted, with a leading
 * apostrophe, so `=HYPERLINK(...)` stays text.
 */
import type { ComplianceReport } from './report.ts';
import { SECTIONS } from './sections/index.ts';

const FORMULA = /^[=+\-@\t\r]/;

export function csvCell(v: unknown): string {
  const s = v === null || v === undefined ? '' : String(v);
  if (FORMULA.test(s)) return `"'${s.replace(/"/g, '""')}"`;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Rows of cells as CSV text (RFC 4180), CRLF line ends. */
export function csvText(rows: ReadonlyArray<readonly unknown[]>): string {
  return `${rows.map((cols) => cols.map(csvCell).join(',')).join('\r\n')}\r\n`;
}

/**
 * The columns. `inspection`: an inspection row's side and coverage in words ("the town's inspection",
 * "the developer's, partial (3 of 5 practices)"); `practice` and `photos`: a finding row's practice (its
 * label) and its photos' SHA-256 hashes, separated by spaces; `signed by`: an inspection row's signer and how
 * they signed ("Ian Inspector (drawn)"), empty when it was not signed; empty in the other rows.
 */
export const CSV_HEADER = [
  'section',
  'id',
  'rule',
  'device',
  'began',
  'due',
  'done',
  'status',
  'detail',
  'inspection',
  'practice',
  'photos',
  'signed by',
];

/** A row with a cell for every column (empty ones added), as RFC 4180 asks. */
const full = (row: readonly unknown[]): unknown[] => [
  ...row,
  ...Array.from({ length: Math.max(0, CSV_HEADER.length - row.length) }, () => ''),
];

export function reportToCsv(r: ComplianceReport): string {
  const cp = r.evidence.checkpoint;
  return csvText([
    CSV_HEADER,
    ...SECTIONS.flatMap((s) => s.csv(r)).map(full),
    full([
      'checkpoint',
      cp.origin,
      '',
      '',
      '',
      '',
      '',
      `${cp.size} entries`,
      `root ${cp.root}; key ${r.evidence.verifierKey}`,
    ]),
  ]);
}
