/**
 * Complete inspections for tests that need an inspection to meet a duty: the developer's side, notes,
 * and a finding for every practice of the site (the storm and routine duties are met by nothing less).
 * Tests of partial, empty or town inspections build their own.
 */

import type { InspectionInput } from '../../gateway/src/alerts/types.ts';
import type { InspectionBody } from '../../shared/src/api/findings.ts';

export const INSPECTED_NOTE = 'Every practice inspected.';

/** A finding "in order" at each practice. */
export function findingsFor(practices: readonly string[], status: 'ok' | 'maintenance' | 'violation' = 'ok') {
  return practices.map((practice) => ({ practice, status, note: '', photos: [] as string[] }));
}

/**
 * A POST /api/inspections body that meets the developer's duties: the body given, with notes when it has
 * none, a finding for each of `practices` (the site's) it does not have, and the developer's side.
 */
export function completeInspection<B extends Partial<InspectionBody>>(
  body: B,
  practices: readonly string[] = [],
): B & { notes: string; side: 'developer' } {
  const have = new Set((body.findings ?? []).map((f) => f.practice));
  const missing = practices.filter((p) => !have.has(p));
  return {
    ...body,
    notes: body.notes?.trim() ? body.notes : INSPECTED_NOTE,
    side: 'developer',
    ...(practices.length > 0 || body.findings
      ? { findings: [...(body.findings ?? []), ...findingsFor(missing)] }
      : {}),
  };
}

/** The same for the alert engine's `recordInspection` (no site practices unless given). */
export function completeInput(input: InspectionInput, practices: readonly string[] = []): InspectionInput {
  const have = new Set((input.findings ?? []).map((f) => f.practice));
  return {
    ...input,
    notes: input.notes?.trim() ? input.notes : INSPECTED_NOTE,
    side: 'developer',
    practices,
    ...(practices.length > 0
      ? { findings: [...(input.findings ?? []), ...findingsFor(practices.filter((p) => !have.has(p)))] }
      : {}),
  };
}
