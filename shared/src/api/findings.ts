/**
 * Inspections of a construction site's practices (town law 001, "Erosion and sediment control
 * inspection"): each site lists its erosion and sediment control practices, and an inspection records a
 * finding for each practice it looked at, with photos. Photos are stored content-addressed: a finding
 * cites them by their SHA-256, and an inspection's log entry carries those hashes, so a report proves the
 * photos too. Times are ISO 8601 UTC.
 */
import { z } from 'zod';
import { idText, MAX, timeText } from '../bounds.ts';
import { FINDING_NOTE_MAX, FINDINGS_MAX, PHOTO_TYPES, PRACTICE_KINDS } from './enforcementWords.ts';
import { FINDING_STATUSES, INSPECTION_SIDES } from './inspectionWords.ts';
import {
  drawingProblem,
  SIGNATURE_DRAWING_MAX,
  SIGNATURE_METHODS,
  SIGNATURE_NAME_MAX,
} from './signatureWords.ts';

export {
  FINDING_NOTE_MAX,
  FINDINGS_MAX,
  PHOTO_MAX_BYTES,
  PHOTO_TYPES,
  PRACTICE_KIND_LABELS,
  PRACTICE_KINDS,
  PRACTICES_MAX,
  type PracticeKind,
} from './enforcementWords.ts';
export {
  coverageWords,
  FINDING_STATUS_LABELS,
  FINDING_STATUSES,
  type FindingStatus,
  INSPECTION_SIDE_LABELS,
  INSPECTION_SIDES,
  type InspectionSide,
} from './inspectionWords.ts';
export { practiceChanges, practiceIdFor, practicesInForce } from './practiceWords.ts';

export const practiceKindSchema = z.enum(PRACTICE_KINDS);

const practiceId = z
  .string()
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'letters, digits, "_", "." and "-" only');

/** One practice of a site (configuration `sites[].practices`, admin API `practices`). */
export const practiceSchema = z.strictObject({
  id: practiceId.describe('Its id within the site; findings name it.'),
  label: z.string().trim().min(1).max(200).describe('What people read: "Silt fence, north boundary".'),
  kind: practiceKindSchema.describe('What kind of practice it is.'),
  retired: timeText()
    .optional()
    .describe(
      'When it was retired (removed from the site): from then on it is not inspected and not counted in "every practice"; past findings still name it. Once set it stays.',
    ),
});
export type Practice = z.infer<typeof practiceSchema>;

export const findingStatusSchema = z.enum(FINDING_STATUSES);
export const photoTypeSchema = z.enum(PHOTO_TYPES);

/** A photo's content address: lower-case hex SHA-256 of its bytes. */
export const photoHashSchema = z
  .string()
  .max(64)
  .regex(/^[0-9a-f]{64}$/, 'a SHA-256 in lower-case hex');

/** One finding of an inspection. `practice` is one of the site's practice ids. */
export const findingSchema = z.strictObject({
  practice: practiceId,
  status: findingStatusSchema,
  note: z.string().max(FINDING_NOTE_MAX).default(''),
  photos: z.array(photoHashSchema).max(20).default([]),
});
export type Finding = z.infer<typeof findingSchema>;

/**
 * POST /api/photos's query: the site the photo is for (the caller must be able to see it). The upload is
 * charged to that site's photo quota and to the caller's account's.
 */
export const photoUploadQuery = z.strictObject({
  siteId: idText().describe('The site whose inspection or correction report the photo is for.'),
});
export type PhotoUploadQuery = z.infer<typeof photoUploadQuery>;

/** POST /api/photos's answer: the photo is stored under its hash. */
export const photoStoredSchema = z.object({
  sha256: photoHashSchema,
  bytes: z.number().int().positive(),
  type: photoTypeSchema,
});
export type PhotoStored = z.infer<typeof photoStoredSchema>;

export const inspectionSideSchema = z.enum(INSPECTION_SIDES);

/** The most people a site lists as inspectors acting for its developer. */
export const DEVELOPER_INSPECTORS_MAX = 50;

/**
 * The people of the town's accounts who inspect a site for its developer (or owner): an inspector the
 * developer hired, a clerk entering the developer's report on paper. Each is named by the e-mail address
 * of their account, or by the name of an API token of the configuration. Only they, and the accounts
 * limited to the site (its owner's, its contractor's), record the developer's side of an inspection; any
 * other town account records the town's own (configuration `sites[].developerInspectors`, admin API).
 */
export const developerInspectorsSchema = z
  .array(z.string().trim().min(1).max(200))
  .max(DEVELOPER_INSPECTORS_MAX);

/** Whether a person named by an account's e-mail or a configured token's name is one of a site's list. */
export function actsForDeveloper(
  list: readonly string[] | undefined,
  who: { email?: string | undefined; tokenName?: string | undefined },
): boolean {
  const email = who.email?.trim().toLowerCase();
  return (list ?? []).some(
    (n) => (email !== undefined && n.trim().toLowerCase() === email) || n === who.tokenName,
  );
}

/**
 * How much of a construction site's practices an inspection covered: `covered` of the `of` practices the
 * site had when it was recorded (each with a finding). Only one covering every practice meets the
 * developer's storm and routine duties; one covering fewer is recorded and shown as partial.
 */
export const inspectionCoverageSchema = z.object({
  covered: z.number().int().nonnegative(),
  of: z.number().int().positive(),
});
export type InspectionCoverage = z.infer<typeof inspectionCoverageSchema>;

import {
  ADVANCED_SYSTEM_SITE_KINDS,
  DEFICIENCIES_MAX,
  DEFICIENCY_KIND_LABELS,
  DEFICIENCY_KINDS,
  DEFICIENCY_NOTE_MAX,
  PUMPED_SITE_KINDS,
} from './wastewaterWords.ts';

export {
  ADVANCED_SYSTEM_SITE_KINDS,
  DEFICIENCIES_MAX,
  DEFICIENCY_KIND_LABELS,
  DEFICIENCY_KINDS,
  DEFICIENCY_NOTE_MAX,
  PUMPED_SITE_KINDS,
};
export const deficiencyKindSchema = z.enum(DEFICIENCY_KINDS);
export type DeficiencyKind = z.infer<typeof deficiencyKindSchema>;
export const deficiencySchema = z.strictObject({
  kind: deficiencyKindSchema,
  note: z.string().trim().min(1).max(DEFICIENCY_NOTE_MAX).describe('What is to be remedied, in words.'),
});
export type Deficiency = z.infer<typeof deficiencySchema>;

/**
 * A deficiency's id: its inspection's id and its place in that inspection's list, from 1
 * (`insp-01J…/2`). A later inspection names the deficiencies it found remedied by these ids.
 */
export const deficiencyIdSchema = z
  .string()
  .max(80)
  .regex(/^insp-[0-9A-Za-z]{1,40}\/[1-9][0-9]{0,1}$/, "an inspection's id, '/', and the deficiency's number");
export const deficiencyId = (inspectionId: string, index: number): string => `${inspectionId}/${index + 1}`;

/**
 * Who pumped a septic or holding tank out: the hauler and the hauler's NYS DEC permit number (law 000,
 * appendix VII: "must have a valid permit issued by NYS DEC").
 */
export const haulerSchema = z.strictObject({
  name: z.string().trim().min(1).max(MAX.name).describe('The person or firm that pumped the tank.'),
  permit: z.string().trim().min(1).max(64).describe("The hauler's NYS DEC permit number."),
});
export type Hauler = z.infer<typeof haulerSchema>;

/**
 * What an inspection of a wastewater system records beyond its findings: the deficiencies an annual
 * inspection found, the earlier deficiencies found remedied, and, for a pump-out, who pumped.
 */
export const inspectionDetailsSchema = z.strictObject({
  deficiencies: z.array(deficiencySchema).max(DEFICIENCIES_MAX).optional(),
  remedied: z.array(deficiencyIdSchema).max(DEFICIENCIES_MAX).optional(),
  hauler: haulerSchema.optional(),
});
export type InspectionDetails = z.infer<typeof inspectionDetailsSchema>;

/**
 * The inspector's signature under the statement (`SIGNATURE_STATEMENT`): the name typed, and either
 * that name adopted as the signature (`typed`) or a drawing made on the screen (`drawn`, its strokes as
 * SVG path data of the signature pad's strict form: `signatureWords.ts`). Optional: inspections recorded
 * without one (older clients, older logs) stay valid.
 */
export const signatureSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(SIGNATURE_NAME_MAX).describe('The name of the person signing.'),
    method: z
      .enum(SIGNATURE_METHODS)
      .describe('typed: the typed name adopted as the signature; drawn: a drawing.'),
    drawing: z
      .string()
      .max(SIGNATURE_DRAWING_MAX)
      .optional()
      .describe(
        'A drawn signature: its strokes as SVG path data, "M x y" then "L x y" for each point, integers within 600 by 200, single spaces.',
      ),
  })
  .superRefine((s, ctx) => {
    if (s.method === 'drawn' && !s.drawing)
      ctx.addIssue({
        code: 'custom',
        path: ['drawing'],
        message: 'a drawn signature needs its drawing: sign on the pad',
      });
    if (s.method === 'typed' && s.drawing !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['drawing'],
        message: 'a signature with the typed name has no drawing: send one or the other',
      });
    const problem = s.drawing === undefined ? undefined : drawingProblem(s.drawing);
    if (problem) ctx.addIssue({ code: 'custom', path: ['drawing'], message: problem });
  });
export type Signature = z.infer<typeof signatureSchema>;

/**
 * POST /api/inspections. `findings` are for construction sites with practices. `clientId` is the
 * browser's own id for an inspection typed offline: sent again, the same inspection is answered, never
 * a second one. An inspection with nothing in it is refused before anything is stored: it carries a
 * finding (at a site with practices, at least one), or, at a site without practices, notes.
 */
export const inspectionBody = z.strictObject({
  siteId: z.string().min(1).max(MAX.id),
  at: z.iso.datetime({ offset: true }).max(MAX.time),
  inspector: z.string().trim().min(1).max(MAX.name),
  kind: z.enum(['routine', 'storm', 'annual', 'cleanout', 'other']),
  notes: z.string().max(MAX.notes).optional(),
  findings: z.array(findingSchema).max(FINDINGS_MAX).optional(),
  clientId: z.uuid().max(36).optional(),
  /** Kind `annual` of an advanced system: what is to be remedied; each opens its remedy duty. */
  deficiencies: inspectionDetailsSchema.shape.deficiencies,
  /** Earlier deficiencies of the site found remedied at this visit (their ids). */
  remedied: inspectionDetailsSchema.shape.remedied,
  /** Kind `cleanout` of a septic or holding tank (a pump-out): who pumped it. */
  hauler: inspectionDetailsSchema.shape.hauler,
  /**
   * Whose inspection it is. A developer's, contractor's or owner's account records only the developer's
   * side (the default for them); the town's accounts record the town's (their default) or, entering an
   * inspection made for the developer, the developer's.
   */
  side: inspectionSideSchema.optional(),
  /** The inspector's signature under the statement; the dashboard asks for it, the API does not. */
  signature: signatureSchema.optional(),
});
export type InspectionBody = z.infer<typeof inspectionBody>;
