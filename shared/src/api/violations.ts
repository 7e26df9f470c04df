/**
 * Enforcement under the law of the site (construction sites: town law 001, "Enforcement"; wastewater
 * systems: town law 000, Sections 5.100 B, 5.030 A 7, 5.010, 6.010): notices of violation (orders) with
 * their remedial schedule, their service on the parties, the appeal within the law's days of service, its
 * hearing where the law has one, the correction and the officer's approval, and stop-work orders that stay
 * in effect until the town confirms compliance. Times are ISO 8601 UTC.
 */
import { z } from 'zod';
import { MAX } from '../bounds.ts';
import { HEARING_OUTCOMES, SERVICE_METHODS, VIOLATION_STATUSES } from './enforcementWords.ts';
import { photoHashSchema } from './findings.ts';

export {
  APPEAL_DAYS,
  DEFAULT_PENALTIES,
  HEARING_OUTCOME_LABELS,
  HEARING_OUTCOMES,
  type HearingOutcome,
  SERVICE_METHOD_LABELS,
  SERVICE_METHODS,
  type ServiceMethod,
  stopWorkDocumentUrl,
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
  /** What the officer orders, one of the site's law's order kinds ("correct", "cease-use"); its first by default. */
  orderKind: z.string().min(1).max(40).optional(),
});
export type ViolationBody = z.infer<typeof violationBody>;

/**
 * POST /api/violations's answer. The appeal window runs from service (the first delivery to a party, or a
 * service by mail or in person the officer records), so a notice just issued has no `appealBy` yet.
 */
export const violationIssuedSchema = z.object({
  id: z.string(),
  law: z.string(),
  issuedAt: iso,
  appealBy: iso.optional(),
  /** The days to appeal from service (law 000: the town's figure). */
  appealDays: z.number().int().positive().optional(),
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
/**
 * POST /api/violations/{id}/approve (inspector): once a correction is reported (since the appeal's
 * hearing, if any), resting on the re-inspection that found it done (`inspectionId`: an inspection of the
 * site made after the correction was reported; required under law 001, optional under law 000, whose
 * Section 5.100 B names no re-inspection).
 */
export const approveBody = z.strictObject({
  note: z.string().max(4000).optional(),
  inspectionId: z
    .string()
    .min(1)
    .max(MAX.id)
    .optional()
    .describe('The re-inspection the approval rests on, made after the correction was reported.'),
});
export type ApproveBody = z.infer<typeof approveBody>;

/**
 * POST /api/violations/{id}/service and POST /api/stop-work/{id}/service (inspector): a service by mail or
 * in person, on the party named, at the time given (not before the notice, not ahead of now).
 */
export const serviceBody = z.strictObject({
  method: z.enum(['mail', 'in-person']),
  party: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .describe('Who was served: a name, as the notice names the parties.'),
  servedAt: isoIn,
  note: z.string().trim().max(4000).optional(),
});
export type ServiceBody = z.infer<typeof serviceBody>;

/** POST /api/violations/{id}/hearing (inspector): the appeal's hearing, where the law has one. */
export const hearingBody = z.strictObject({
  heldOn: z.iso.date().max(10).describe('The date of the hearing (YYYY-MM-DD, the site’s calendar).'),
  outcome: z.enum(HEARING_OUTCOMES),
  note: z.string().trim().min(1).max(4000),
});
export type HearingBody = z.infer<typeof hearingBody>;

/** A service of a notice or an order on one party. */
export const serviceSchema = z.object({
  method: z.enum(SERVICE_METHODS),
  party: z.string(),
  servedAt: iso,
});

/**
 * A service of a stop-work order, as its log entry has it: how, on whom, when it was made, when and by
 * whom it was recorded ("e-mail delivery" for an e-mail the server accepted), with the officer's note.
 */
export const stopWorkServiceSchema = serviceSchema.extend({
  at: iso,
  by: z.string(),
  note: z.string(),
  logIndex: z.number().int().optional(),
});
export type StopWorkService = z.infer<typeof stopWorkServiceSchema>;

/** One step of a notice after it was issued. */
export const violationEventSchema = z.object({
  kind: z.enum(['served', 'appealed', 'heard', 'corrected', 'approved']),
  at: iso,
  by: z.string(),
  text: z.string(),
  photos: z.array(photoHashSchema),
  /** A service: how, on whom, when (the appeal window runs from the first). */
  method: z.enum(SERVICE_METHODS).optional(),
  party: z.string().optional(),
  servedAt: iso.optional(),
  /** The first service: the end of the appeal window it started. */
  appealBy: iso.optional(),
  /** A hearing of the appeal: its date and what was decided. */
  heldOn: z.iso.date().optional(),
  outcome: z.enum(HEARING_OUTCOMES).optional(),
  /** An approval: the re-inspection it rests on, when it was made and by whom (absent in older approvals). */
  inspectionId: z.string().optional(),
  inspectedAt: iso.optional(),
  inspectedBy: z.string().optional(),
  ...logged,
});
export type ViolationEvent = z.infer<typeof violationEventSchema>;

/** A notice as GET /api/violations lists it. */
export const violationDtoSchema = z.object({
  id: z.string(),
  siteId: z.string(),
  /** Its number among the site's notices (1, 2, ...), as logged: a removed notice is a gap. */
  siteSeq: z.number().int().optional(),
  /** The law it is under (`ENFORCEMENT_LAWS`: "001", "000"), by the site's kind (absent in reports made before: 001). */
  law: z.string().optional(),
  /** What the officer ordered, one of its law's order kinds (absent in reports made before). */
  orderKind: z.string().optional(),
  inspectionId: z.string().optional(),
  status: violationStatusSchema,
  nature: z.string(),
  remedy: z.string(),
  remedyDueAt: iso,
  penalties: z.string(),
  issuedAt: iso,
  issuedBy: z.string(),
  /** When it was first served on a party (absent: not yet served, the appeal window has not started). */
  servedAt: iso.optional(),
  /** The end of the appeal window (the first late instant), from service; absent before service. */
  appealBy: iso.optional(),
  /**
   * The days to appeal: those its first service counted, else its law's (the town's figure where the law
   * names none, law 000); absent in reports made before.
   */
  appealDays: z.number().int().positive().optional(),
  /** Where the days are the town's choice (law 000) and its current figure: the town's reason, in words. */
  appealReason: z.string().optional(),
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
  /** The law it is under, by the site's kind (absent in reports made before: 001). */
  law: z.string().optional(),
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
  /** Its services on the parties, in the order recorded (empty or absent: not yet served). */
  services: z.array(stopWorkServiceSchema).optional(),
  servedAt: iso.optional(),
  ...logged,
});
export type StopWorkDto = z.infer<typeof stopWorkDtoSchema>;

/**
 * A stop-work order as it is served by e-mail (the notification outbox's payload): the order as it stood
 * when issued (or lifted: `liftedAt` set, a notice that it is lifted), with the parties on file then.
 */
export const stopWorkServedSchema = stopWorkDtoSchema.extend({
  landowner: partySchema.optional(),
  developer: partySchema.optional(),
  siteAddress: z.string().optional(),
});
export type StopWorkServed = z.infer<typeof stopWorkServedSchema>;

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
