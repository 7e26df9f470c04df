/**
 * The compliance report as CSV: one row per item with the section it belongs to, the summary with its
 * labels, the notices of violation with their steps and the stop-work orders (`enforcementCsv.ts`), the
 * signature block and the checkpoint. A cell that a spreadsheet would read as a formula (starting with
 * =, +, -, @, a tab or a carriage return) is neutralised as OWASP recommends: quoted, with a leading
 * apostrophe, so `=HYPERLINK(...)` stays text.
 */
import { stormRuleId } from '../rules/index.ts';
import { type ComplianceReport, SUMMARY_LABELS, type SummaryKey } from './compliance.ts';
import { enforcementRows } from './enforcementCsv.ts';

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
  const out: unknown[][] = [['section', 'id', 'rule', 'device', 'began', 'due', 'done', 'status', 'detail']];
  for (const [k, label] of Object.entries(SUMMARY_LABELS))
    out.push(['summary', k, '', '', '', '', '', r.summary[k as SummaryKey], label]);
  for (const s of r.storms)
    out.push([
      'storm',
      s.id,
      stormRuleId() ?? '',
      s.deviceId,
      s.start,
      s.dueAt ?? '',
      s.inspection.inspectedAt ?? '',
      s.qualified ? s.inspection.status : 'not-required',
      `${s.inches.toFixed(3)} in (${s.tips} tips), ended ${s.end}`,
    ]);
  for (const [section, rows] of [
    ['routine', r.routine],
    ['cleanout', r.cleanouts],
    ['remedy', r.remedies],
    ['gap', r.gaps],
    ['other', r.other],
  ] as const)
    for (const d of rows)
      out.push([
        section,
        d.alertId,
        d.rule,
        d.deviceId ?? '',
        d.began,
        d.dueAt ?? '',
        d.resolvedAt ?? '',
        d.status,
        d.message,
      ]);
  for (const x of r.inspections)
    out.push([
      'inspection',
      x.id,
      x.kind,
      '',
      x.at,
      '',
      x.recordedAt,
      'recorded',
      `${x.inspector}: ${x.notes}`,
    ]);
  for (const n of r.notices)
    out.push([
      'notice',
      n.id,
      n.milestone,
      '',
      n.at,
      '',
      n.filedAt,
      n.late ? 'late' : 'on-time',
      `${n.label}, filed by ${n.filedBy}: ${n.standing}`,
    ]);
  out.push(...enforcementRows(r));
  for (const e of r.extensions)
    out.push([
      'extension',
      e.alertId,
      e.rule,
      '',
      e.oldDueAt,
      e.newDueAt,
      e.at,
      'extended',
      `${e.engineer}, letter ${e.letterRef}`,
    ]);
  for (const c of r.changes)
    out.push([
      'change',
      String(c.logIndex),
      c.entity,
      c.deviceId ?? '',
      '',
      '',
      c.effectiveAt,
      c.action,
      `${c.by}: ${JSON.stringify(c.old)} -> ${JSON.stringify(c.new)}`,
    ]);
  out.push(['generated', '', '', '', '', '', r.generatedAt, '', `by ${r.generatedBy}`]);
  for (const c of r.certifications)
    out.push([
      'certified',
      String(c.logIndex),
      c.role,
      '',
      c.period.from,
      c.period.to,
      c.at,
      'certified',
      `${c.by}: ${c.statement}`,
    ]);
  const cp = r.evidence.checkpoint;
  out.push([
    'checkpoint',
    cp.origin,
    '',
    '',
    '',
    '',
    '',
    `${cp.size} entries`,
    `root ${cp.root}; key ${r.evidence.verifierKey}`,
  ]);
  return csvText(out);
}
