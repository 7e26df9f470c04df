/**
 * The developer's records of a construction site under town law 001, kept by the gateway as the law asks
 * them kept, each an entry of the evidence log:
 * - a contractor's certification ("SWPPP certification", A-C): signed before any land development
 *   activity, with the law's statement and the person's and firm's particulars;
 * - the SWPPP kept on site ("SWPPP certification", D): since when, and who keeps it;
 * - the site's expected milestones (the eight of "Erosion and sediment control inspection", A(1)), so a
 *   milestone passed with no 48-hour notice on file can be seen;
 * - the officer's final acceptance ("Construction completion guarantee"), which opens the one-year
 *   inspection, and that inspection's result;
 * - the final stabilization of the site, recorded by the site's side (the end of "during construction"
 *   for the SWPPP kept on site, "SWPPP certification", D), and the officer's confirmation of it.
 * Times are ISO 8601 UTC; a record's `at` is the time it speaks of (signed, on site since, expected,
 * accepted, inspected), `recordedAt` when the gateway stored it.
 */
import { z } from 'zod';
import { MAX } from '../bounds.ts';
import { MILESTONE_IDS } from './milestones.ts';
import { CERTIFICATION_STATEMENT, SITE_RECORD_KINDS } from './siteRecordWords.ts';

export {
  CERTIFICATION_STATEMENT,
  SITE_RECORD_BY,
  SITE_RECORD_KINDS,
  SITE_RECORD_LABELS,
  type SiteRecordKind,
} from './siteRecordWords.ts';

const text = (max: number = MAX.name) => z.string().trim().min(1).max(max);
const timeIn = z.iso.datetime({ offset: true }).max(MAX.time);

/** A contractor's certification: the law's statement, signed, with what A and B require beside it. */
export const certificationRecord = z.strictObject({
  kind: z.literal('certification'),
  /** The statement as signed: it must be the law's, word for word. */
  statement: z.literal(CERTIFICATION_STATEMENT),
  name: text().describe('The name of the person who signed.'),
  title: text().describe("The signer's title."),
  firm: text().describe('The contracting firm.'),
  firmAddress: text(500).describe("The contracting firm's address."),
  telephone: text(40).describe("The contracting firm's telephone number."),
  siteAddress: text(500).describe('The address (or other identifying description) of the site.'),
  signedAt: timeIn.describe('When the certification was signed (the date it is made).'),
});

/** The SWPPP kept on site since `since`, by whom and where. */
export const swpppRecord = z.strictObject({
  kind: z.literal('swppp'),
  since: timeIn.describe('Since when a copy of the SWPPP is kept at the site.'),
  keptBy: text().describe('Who keeps it.'),
  where: text(500).describe('Where on the site it is kept.'),
});

/** When a milestone is expected; a later record of the same milestone replaces the date. */
export const expectedMilestoneRecord = z.strictObject({
  kind: z.literal('expected-milestone'),
  milestone: z.enum(MILESTONE_IDS),
  expectedAt: timeIn,
});

/** The officer's final acceptance of the site's facilities. */
export const finalAcceptanceRecord = z.strictObject({
  kind: z.literal('final-acceptance'),
  acceptedAt: timeIn,
  note: z.string().trim().max(MAX.text).default(''),
});

/** The one-year inspection after final acceptance, and whether the facilities were found acceptable. */
export const oneYearInspectionRecord = z.strictObject({
  kind: z.literal('one-year-inspection'),
  inspectedAt: timeIn,
  acceptable: z.boolean(),
  note: z.string().trim().max(MAX.text).default(''),
});

/** The site's final stabilization, as the site's side records it: when, and what was done. */
export const finalStabilizationRecord = z.strictObject({
  kind: z.literal('final-stabilization'),
  stabilizedAt: timeIn.describe('When the site reached final stabilization.'),
  description: text(MAX.text).describe(
    'What stabilizes the site (permanent vegetation, paving, structures), in words.',
  ),
});

/** The officer's confirmation of the site's final stabilization record (`confirms` is its id). */
export const stabilizationConfirmationRecord = z.strictObject({
  kind: z.literal('stabilization-confirmation'),
  confirms: z.string().min(1).max(MAX.id).describe('The final stabilization record confirmed.'),
  confirmedAt: timeIn.describe('When the officer confirmed it (seen on site or on the record).'),
  note: z.string().trim().max(MAX.text).default(''),
});

/** POST /api/sites/{id}/records: one record. */
export const siteRecordBody = z.discriminatedUnion('kind', [
  certificationRecord,
  swpppRecord,
  expectedMilestoneRecord,
  finalAcceptanceRecord,
  oneYearInspectionRecord,
  finalStabilizationRecord,
  stabilizationConfirmationRecord,
]);
export type SiteRecordBody = z.infer<typeof siteRecordBody>;

/** A record as GET /api/sites/{id}/records lists it, with where it stands in the evidence log. */
export const siteRecordDtoSchema = z.object({
  id: z.string(),
  siteId: z.string(),
  kind: z.enum(SITE_RECORD_KINDS),
  /** Its place among its site's records (a gap shows a removed one). */
  siteSeq: z.number().int(),
  /** The time the record speaks of. */
  at: z.iso.datetime(),
  recordedAt: z.iso.datetime(),
  recordedBy: z.string(),
  /** The record as given (its times as given, normalised to UTC). */
  body: siteRecordBody,
  /** In words: "Jane Roe, site manager, Acme Excavating". */
  summary: z.string(),
  logIndex: z.number().int().optional(),
  leafHash: z.string().optional(),
});
export type SiteRecordDto = z.infer<typeof siteRecordDtoSchema>;

/** The time a record speaks of. */
export function recordTime(b: SiteRecordBody): string {
  switch (b.kind) {
    case 'certification':
      return b.signedAt;
    case 'swppp':
      return b.since;
    case 'expected-milestone':
      return b.expectedAt;
    case 'final-acceptance':
      return b.acceptedAt;
    case 'one-year-inspection':
      return b.inspectedAt;
    case 'final-stabilization':
      return b.stabilizedAt;
    case 'stabilization-confirmation':
      return b.confirmedAt;
  }
}

/**
 * GET /api/sites/{id}/records/standing: where the site's records stand now, for its page: each expected
 * milestone with its notice (or flagged: passed with no notice on file), the one-year inspection after the
 * last final acceptance with its due time, and the final stabilization with its confirmation.
 */
export const siteRecordStandingSchema = z.object({
  milestones: z.array(
    z.object({
      milestone: z.enum(MILESTONE_IDS),
      /** The law's words for it. */
      label: z.string(),
      /** The last expected time recorded. */
      expectedAt: z.iso.datetime(),
      /** The last moment a notice is on time (48 hours before). */
      noticeBy: z.iso.datetime(),
      /** The first notice of the milestone on file, if any. */
      notice: z.object({ filedAt: z.iso.datetime(), late: z.boolean() }).nullable(),
      /** The expected time has passed and no notice of it is on file. */
      flagged: z.boolean(),
    }),
  ),
  oneYear: z
    .object({
      acceptedAt: z.iso.datetime(),
      /** The last moment the one-year inspection is on time. */
      dueAt: z.iso.datetime(),
      inspection: z.object({ inspectedAt: z.iso.datetime(), acceptable: z.boolean() }).nullable(),
    })
    .nullable(),
  stabilization: z
    .object({
      recordId: z.string(),
      stabilizedAt: z.iso.datetime(),
      description: z.string(),
      recordedBy: z.string(),
      confirmation: z
        .object({ confirmedAt: z.iso.datetime(), confirmedBy: z.string(), note: z.string() })
        .nullable(),
    })
    .nullable(),
});
export type SiteRecordStanding = z.infer<typeof siteRecordStandingSchema>;
