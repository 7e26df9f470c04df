/**
 * An inspection in words, without zod, for the dashboard's lazily loaded parts and the inspection form:
 * its kinds, whose it is, what each finding at a practice says, and how many practices it covered
 * (`enforcementWords.ts` re-exports them).
 */

export const FINDING_STATUSES = ['ok', 'maintenance', 'violation'] as const;
export type FindingStatus = (typeof FINDING_STATUSES)[number];
export const FINDING_STATUS_LABELS: Record<FindingStatus, string> = {
  ok: 'In order',
  maintenance: 'Needs maintenance',
  violation: 'Violation',
};

export const INSPECTION_KINDS = ['routine', 'storm', 'annual', 'cleanout', 'other'] as const;
/** An inspection's kind in words. */
export const INSPECTION_KIND_LABELS: Record<(typeof INSPECTION_KINDS)[number], string> = {
  routine: 'Routine inspection',
  storm: 'Inspection after a storm',
  annual: 'Annual inspection',
  cleanout: 'Pump-out',
  other: 'Other inspection',
};

/**
 * Whose inspection it is: the developer's side (the developer, a contractor, an owner, or an inspector
 * acting for them) or the town's. Only the sides a rule's duty names meet it (the rule modules' `duty`);
 * the town's own visit is recorded and shown as the town's, and meets none of the developer's duties.
 */
export const INSPECTION_SIDES = ['developer', 'town'] as const;
export type InspectionSide = (typeof INSPECTION_SIDES)[number];
export const INSPECTION_SIDE_LABELS: Record<InspectionSide, string> = {
  developer: "Developer's inspection",
  town: 'Town inspection',
};

/** "3 of 5 practices": how many of a site's practices an inspection covered. */
export function coverageWords(c: { covered: number; of: number }): string {
  return `${c.covered} of ${c.of} practice${c.of === 1 ? '' : 's'}`;
}
