/**
 * The compliance report's enforcement rows of its CSV, in the report's columns (section, id, rule,
 * device, began, due, done, status, detail): a `violation` row per notice of violation (its last step in
 * the rule column; served, remedy due, approved; on time, late, overdue or open), a `violation-step` row per step after it (appealed,
 * corrected, approved, with the photos' SHA-256 in full), and a `stop-work` row per order (since, lifted;
 * in effect, lifted, or lifted with an override). Times are ISO 8601 UTC, as in the other rows.
 */
import type { ComplianceReport } from './compliance.ts';
import type { ReportViolation } from './enforcement.ts';

const seq = (n: number | undefined) => (n === undefined ? '' : `no. ${n}, `);
const logged = (i: number | undefined) => (i === undefined ? '' : ` (log entry ${i})`);

/** A notice's outcome at the period's end (or when the report was made, if sooner), as a duty's status. */
function outcome(v: ReportViolation, asAt: number): string {
  if (v.status === 'approved') return v.onTime ? 'on-time' : 'late';
  return asAt > Date.parse(v.remedyDueAt) ? 'overdue' : 'open';
}

export function enforcementRows(r: ComplianceReport): unknown[][] {
  const out: unknown[][] = [];
  const end = Math.min(Date.parse(r.period.to), Date.parse(r.generatedAt));
  for (const v of r.violations) {
    const approved = v.events.find((e) => e.kind === 'approved');
    const follows = v.inspectionId ? `; follows inspection ${v.inspectionId}` : '';
    out.push([
      'violation',
      v.id,
      v.status,
      '',
      v.issuedAt,
      v.remedyDueAt,
      approved?.at ?? '',
      outcome(v, end),
      `${seq(v.siteSeq)}issued by ${v.issuedBy}: ${v.nature}; remedy: ${v.remedy}; appeal until ${v.appealBy}${follows}; ${v.standing}${logged(v.logIndex)}`,
    ]);
    for (const e of v.events)
      out.push([
        'violation-step',
        v.id,
        e.kind,
        '',
        e.at,
        '',
        e.at,
        'recorded',
        `${e.by}: ${e.text}${e.photos.length ? `; photos ${e.photos.join(' ')}` : ''}${logged(e.logIndex)}`,
      ]);
  }
  for (const o of r.stopWork) {
    const lifted =
      o.liftedAt === undefined
        ? ''
        : `; lifted by ${o.liftedBy ?? ''}: ${o.liftNote ?? ''}${logged(o.liftLogIndex)}`;
    out.push([
      'stop-work',
      o.id,
      '',
      '',
      o.since,
      '',
      o.liftedAt ?? '',
      o.liftedAt === undefined ? 'in-effect' : o.override ? 'lifted-override' : 'lifted',
      `${seq(o.siteSeq)}issued by ${o.issuedBy}: ${o.reason}; notices ${o.violationIds.join(' ') || 'none'}${logged(o.logIndex)}${lifted}`,
    ]);
  }
  return out;
}
