/**
 * What closed an alert: the record or event the resolution rests on, kept as data on the resolution (its
 * history entry's `detail.cause`, the alert's `resolution.cause`, logged in the evidence log with the
 * entry). An inspection (who, when, what kind, its id; a pump-out's hauler), the officer's step on a notice
 * of violation (its number), a developer's record, the readings (the device and the reading's time), a
 * person by hand, a device's clock corrected, or the gateway's schedule. Resolutions recorded before
 * causes were kept have none, and read as they did. Times are ISO 8601 UTC. The words: `resolutionWords.ts`.
 */
import { z } from 'zod';
import { haulerSchema } from './findings.ts';

const iso = z.iso.datetime();

export const RESOLUTION_CAUSE_KINDS = [
  'readings',
  'inspection',
  'notice',
  'record',
  'person',
  'clock',
  'history',
  'schedule',
] as const;

export const resolutionCauseSchema = z.discriminatedUnion('kind', [
  /** The device's readings: the reading (its source time) that ended the condition. */
  z.object({ kind: z.literal('readings'), deviceId: z.string().optional(), at: iso }),
  /** An inspection: its id, inspector, kind (as recorded) and when it was done; a pump-out's hauler. */
  z.object({
    kind: z.literal('inspection'),
    inspectionId: z.string(),
    inspector: z.string(),
    inspectionKind: z.string(),
    at: iso,
    hauler: haulerSchema.optional(),
  }),
  /** A notice of violation's step: approved by the officer (remedy done), or reversed on appeal. */
  z.object({
    kind: z.literal('notice'),
    step: z.enum(['approved', 'reversed']),
    noticeId: z.string(),
    /** Its number among the site's notices (absent on notices logged before they were numbered). */
    number: z.number().int().optional(),
    by: z.string(),
    at: iso,
  }),
  /** A developer's record or a milestone notice filed (`record` its kind as the records name it). */
  z.object({
    kind: z.literal('record'),
    record: z.string(),
    recordId: z.string(),
    by: z.string(),
    at: iso,
  }),
  /** A person, by hand, with a note (the note is the resolution's evidence). */
  z.object({ kind: z.literal('person'), by: z.string() }),
  /** A device's clock corrected (its held readings released) by a person. */
  z.object({ kind: z.literal('clock'), deviceId: z.string(), by: z.string(), at: iso }),
  /** The site's history on record (its last inspection or pump-out entered with the site). */
  z.object({ kind: z.literal('history'), at: iso }),
  /** The gateway's schedule: a time came (a site no longer active, a period ended). */
  z.object({ kind: z.literal('schedule'), at: iso }),
]);
export type ResolutionCause = z.infer<typeof resolutionCauseSchema>;
