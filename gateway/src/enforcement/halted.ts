/**
 * Work halted by a violation finding (town law 001, erosion and sediment control inspection A(2): "no
 * further work ... except for site stabilization until any violations are corrected"). An inspection
 * with a finding of violation at a practice halts work from its time; it stops halting once the
 * correction is approved: a notice of violation citing the inspection, corrected and approved by the
 * officer (the notices' own flow). Derived from the records each time, so it needs no state of its own.
 */
import type { InspectionDto } from '../../../shared/src/api/alerts.ts';
import type { Practice } from '../../../shared/src/api/findings.ts';
import type { ViolationDto, WorkHalted } from '../../../shared/src/api/violations.ts';

export function workHalted(
  inspections: readonly Pick<InspectionDto, 'id' | 'at' | 'findings'>[],
  notices: readonly Pick<ViolationDto, 'inspectionId' | 'status'>[],
  practices: readonly Practice[] = [],
): WorkHalted | null {
  const approved = new Set(
    notices.flatMap((n) => (n.status === 'approved' && n.inspectionId ? [n.inspectionId] : [])),
  );
  const open = inspections
    .filter((i) => !approved.has(i.id) && (i.findings ?? []).some((f) => f.status === 'violation'))
    .sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  if (open.length === 0) return null;
  const label = new Map(practices.map((p) => [p.id, p.label]));
  const found = [
    ...new Set(
      open.flatMap((i) => (i.findings ?? []).filter((f) => f.status === 'violation').map((f) => f.practice)),
    ),
  ];
  return {
    since: open[0]!.at,
    practices: found.map((p) => label.get(p) ?? p),
    inspectionIds: open.map((i) => i.id),
  };
}
