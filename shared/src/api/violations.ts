/**
 * Enforcement (town law 001, "Enforcement"): notices of violation with their remedial schedule, the
 * appeal within 15 days of service, the developer's correction and the officer's approval, and stop-work
 * orders that stay in effect until the town confirms compliance. Times are ISO 8601 UTC.
 */
import { z } from 'zod';
import { MAX } from '../bounds.ts';
import { VIOLATION_STATUSES } from './enforcementWords.ts';
import { photoHashSchema } from './findings.ts';

export {
  APPEAL_DAYS,
  DEFAULT_PENALTIES,
  VIOLATION_STATUS_LABELS,
  VIOLATION_STATUSES,
  type ViolationStatus,
} from './enforcementWords.ts';

const iso = z.iso.datetime();
const isoIn = z.iso.datetime({ offset: true }).max(MAX.time);
const logged = { logIndex: z.number().int().optional(), leafHash: z.string().optional() };

/** A party the notice is directed to (sites' `landowner` and `developer`). */
export const partySchema = z.strictObject({
  name: z.string().trim().min(1).max(200).describe('The name a notice is addressed to.'),
  address: z.string().trim().min(1).max(500).describe('The postal address a notice is served at.'),
  email: z.email().max(MAX.email).optional().describe('Notices are also sent here (needs notify.smtp).'),
});
export type Party = z.infer<typeof partySchema>;

export const violationStatusSchema = z.enum(VIOLATION_STATUSES);

/** POST /api/violations (inspector). */
export const violationBody = z.strictObject({
  siteId: z.string().min(1).max(MAX.id),
  inspectionId: z.string().max(MAX.id).optional(),
  nature: z.string().trim().min(1).max(4000),
  remedy: z.string().trim().min(1).max(4000),
  remedyDueAt: isoIn,
  penalties: z.string().trim().min(1).max(4000).optional(),
});
export type ViolationBody = z.infer<typeof violationBody>;

/** POST /api/violations's answer. `appealBy` is 15 days after service (issuedAt). */
export const violationIssuedSchema = z.object({
  id: z.string(),
  issuedAt: iso,
  appealBy: iso,
  status: violationStatusSchema,
  documentUrl: z.string(),
});
export type ViolationIssued = z.infer<typeof violationIssuedSchema>;

/** POST /api/violations/{id}/appeal (the site's owner or contractor). */
export const appealBody = z.strictObject({ reason: z.string().trim().min(1).max(4000) });
/** POST /api/violations/{id}/corrected (the site's contractor or owner). */
export const correctedBody = z.strictObject({
  note: z.string().trim().min(1).max(4000),
  photos: z.array(photoHashSchema).max(20).default([]),
});
/** POST /api/violations/{id}/approve (inspector). */
export const approveBody = z.strictObject({ note: z.string().max(4000).optional() });

/** One step of a notice after it was issued. */
export const violationEventSchema = z.object({
  kind: z.enum(['appealed', 'corrected', 'approved']),
  at: iso,
  by: z.string(),
  text: z.string(),
  photos: z.array(photoHashSchema),
  ...logged,
});
export type ViolationEvent = z.infer<typeof violationEventSchema>;

/** A notice as GET /api/violations lists it. */
export const violationDtoSchema = z.object({
  id: z.string(),
  siteId: z.string(),
  /** Its number among the site's notices (1, 2, ...), as logged: a removed notice is a gap. */
  siteSeq: z.number().int().optional(),
  inspectionId: z.string().optional(),
  status: violationStatusSchema,
  nature: z.string(),
  remedy: z.string(),
  remedyDueAt: iso,
  penalties: z.string(),
  issuedAt: iso,
  issuedBy: z.string(),
  appealBy: iso,
  /** To whom it is directed, as the site had them at issue. */
  landowner: partySchema.optional(),
  developer: partySchema.optional(),
  siteAddress: z.string().optional(),
  /** Approved by the remedy's due time (absent until approved). */
  onTime: z.boolean().optional(),
  events: z.array(violationEventSchema),
  documentUrl: z.string(),
  ...logged,
});
export type ViolationDto = z.infer<typeof violationDtoSchema>;

/** GET /api/violations. */
export const violationsQuery = z.strictObject({
  siteId: z.string().max(MAX.id).optional(),
  status: violationStatusSchema.optional(),
});

/** POST /api/sites/{id}/stop-work (inspector). */
export const stopWorkBody = z.strictObject({
  reason: z.string().trim().min(1).max(4000),
  violationId: z.string().max(MAX.id).optional(),
});
/**
 * POST /api/sites/{id}/stop-work/lift (inspector). Refused while a notice the order names is not
 * approved, unless `override` is true (recorded as such, with the note).
 */
export const stopWorkLiftBody = z.strictObject({
  note: z.string().trim().min(1).max(4000),
  override: z.boolean().optional(),
});

/** A stop-work order; `liftedAt` absent while it is in effect. */
export const stopWorkDtoSchema = z.object({
  id: z.string(),
  siteId: z.string(),
  /** Its number among the site's stop-work orders (1, 2, ...), as logged. */
  siteSeq: z.number().int().optional(),
  since: iso,
  reason: z.string(),
  issuedBy: z.string(),
  violationIds: z.array(z.string()),
  liftedAt: iso.optional(),
  liftedBy: z.string().optional(),
  liftNote: z.string().optional(),
  /** Lifted before every notice it names was approved. */
  override: z.boolean().optional(),
  /** The log entry of its lifting (the order's own is `logIndex`). */
  liftLogIndex: z.number().int().optional(),
  ...logged,
});
export type StopWorkDto = z.infer<typeof stopWorkDtoSchema>;

/**
 * Work halted by a violation found at an inspection (001, inspection A(2): "no further work ... except
 * for site stabilization until any violations are corrected"): from the first inspection whose violation
 * findings are not yet corrected and approved (a notice of violation citing the inspection, approved),
 * the practices found in violation (their labels), and the inspections.
 */
export const workHaltedSchema = z.object({
  since: iso,
  practices: z.array(z.string()),
  inspectionIds: z.array(z.string()),
});
export type WorkHalted = z.infer<typeof workHaltedSchema>;
