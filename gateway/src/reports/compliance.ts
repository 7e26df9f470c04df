/**
 * The compliance report of one site over a period of whole local days, built from the logged data: each
 * section of `sections/index.ts` collects its part (storms and their inspections, the duties each on
 * time, late, missing, overdue or still open, inspections, notices, notices of violation and stop-work
 * orders, extensions, changes, certifications) and its counts, then the summary counts them; around
 * them, who generated the report and when, and the evidence: the signed checkpoint it rests on and every
 * record it cites with its inclusion proof (`evidence/citations.ts`), so that `npm run verify` can check
 * it with nothing but the public key. Renderers: `json.ts`, `csv.ts`, `html.ts`.
 */
import type { ComplianceReport, ReportInputs } from './report.ts';
import { SECTIONS } from './sections/index.ts';
import type { Counts, SectionFields } from './sections/section.ts';

/** Each section's fields and counts; the summary's (`countsOthers`) after the others, from their counts. */
function collectSections(i: ReportInputs): SectionFields {
  const counts: Counts = {};
  // Every field is filled below: index.ts checks that some listed section fills each.
  const fields = {} as SectionFields;
  const order = [...SECTIONS.filter((s) => !s.countsOthers), ...SECTIONS.filter((s) => s.countsOthers)];
  for (const s of order) {
    const c = s.collect(i, counts);
    Object.assign(fields, c.fields);
    Object.assign(counts, c.counts);
  }
  return fields;
}

export function buildComplianceReport(i: ReportInputs): ComplianceReport {
  const f = collectSections(i);
  const audit = i.evidence.audit;
  // The fields in the order the report's JSON has always had them (what verifiers and filed reports
  // read): not the sections' order.
  return {
    warnings: audit.ok
      ? []
      : [
          `When this report was made, the gateway's own check found that its records do not match its evidence log (${audit.detail ?? 'no detail given'}). Records may have been changed or removed: do not rely on this report until the store has been examined.`,
        ],
    site: {
      id: i.site.id,
      name: i.site.name ?? i.site.id,
      kind: i.site.kind,
      timezone: i.timezone,
      ...(i.site.practices?.length
        ? { practices: i.site.practices.map((p) => ({ id: p.id, label: p.label })) }
        : {}),
    },
    period: {
      from: new Date(i.period.from).toISOString(),
      to: new Date(i.period.to).toISOString(),
      firstDay: i.period.firstDay,
      lastDay: i.period.lastDay,
    },
    generatedAt: new Date(i.now).toISOString(),
    generatedBy: i.generatedBy,
    summary: f.summary,
    storms: f.storms,
    inspections: f.inspections,
    notices: f.notices,
    violations: f.violations,
    stopWork: f.stopWork,
    ...(f.stopWorkInEffect ? { stopWorkInEffect: f.stopWorkInEffect } : {}),
    routine: f.routine,
    cleanouts: f.cleanouts,
    remedies: f.remedies,
    other: f.other,
    gaps: f.gaps,
    deadlineReadings: f.deadlineReadings,
    extensions: f.extensions,
    certifications: f.certifications,
    changes: f.changes,
    records: f.records,
    evidence: i.evidence,
  };
}
