/**
 * The words and figures of a wastewater inspection (law 000) without zod, so the inspection form's
 * bundle can import them; `findings.ts` holds the schemas.
 */
/**
 * What an engineer's annual inspection of an advanced system finds to remedy (law 000, 5.030 B 1 d): a
 * fault of the equipment (remedy within 5 days) or of the absorption field (within 30 days), counted from
 * the inspection's submittal to the town.
 */
export const DEFICIENCY_KINDS = ['equipment', 'field'] as const;
/**
 * The site kinds with an advanced system (law 000, 5.030 B 1 b: "… and holding tanks"): the engineer's
 * annual inspection and its remedies apply to them.
 */
export const ADVANCED_SYSTEM_SITE_KINDS = ['alternative-system', 'holding-tank'] as const;
/** The site kinds with a tank a hauler pumps out (law 000, appendix VII). */
export const PUMPED_SITE_KINDS = ['septic', 'alternative-system', 'holding-tank'] as const;
/** What a clerk reads for each kind. */
export const DEFICIENCY_KIND_LABELS: Record<(typeof DEFICIENCY_KINDS)[number], string> = {
  equipment: 'Equipment (5 days to remedy)',
  field: 'Absorption field (30 days to remedy)',
};
/** An annual inspection lists at most this many deficiencies, each note at most this long. */
export const DEFICIENCIES_MAX = 20;
export const DEFICIENCY_NOTE_MAX = 500;
