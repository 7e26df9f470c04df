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

export function reportToCsv(r: ComplianceReport): string {
  const cp = r.evidence.checkpoint;
  return csvText([
    ['section', 'id', 'rule', 'device', 'began', 'due', 'done', 'status', 'detail'],
    ...SECTIONS.flatMap((s) => s.csv(r)),
    [
      'checkpoint',
      cp.origin,
      '',
      '',
      '',
      '',
      '',
      `${cp.size} entries`,
      `root ${cp.root}; key ${r.evidence.verifierKey}`,
    ],
  ]);
}
