/**
 * The alerts as they leave the gateway: over the API, in notifications, on the live feed and in reports.
 * An alert with its history, a storm, an inspection, an engineer's extension, a notification delivery,
 * and the alert change the InfluxDB output writes as a point. Times are ISO 8601 UTC.
 */
import { z } from 'zod';
import {
  deficiencySchema,
  findingSchema,
  inspectionCoverageSchema,
  inspectionDetailsSchema,
  inspectionSideSchema,
  signatureSchema,
} from './findings.ts';
import { INSPECTION_KIND_LABELS, INSPECTION_KINDS } from './inspectionWords.ts';
import { resolutionCauseSchema } from './resolutionCause.ts';

/** One labelled sentence of an alert's evidence: "Storm" / "0.62 in, Nov 30 6:53 AM to Dec 1 5:17 AM". */
export const factLineSchema = z.object({ label: z.string(), text: z.string() });
export type FactLine = z.infer<typeof factLineSchema>;

const iso = z.iso.datetime();

/** Where a record stands in the evidence log: its entry's index and leaf hash (base64). */
const logged = {
  logIndex: z.number().int().optional(),
  leafHash: z.string().optional(),
};

/**
 * A rule's id. The gateway's rule modules define the ids; the contract carries them as strings, so that
 * a reader of another release (a follower, a report verifier) can read every alert.
 */
export const ruleIdSchema = z.string();

export const ALERT_STATUSES = ['open', 'acknowledged', 'resolved'] as const;
export const alertStatusSchema = z.enum(ALERT_STATUSES);
export type AlertStatus = z.infer<typeof alertStatusSchema>;

export const HISTORY_ACTIONS = [
  'raised',
  'updated',
  'acknowledged',
  'resolved',
  'extended',
  'overdue',
  'reminder',
] as const;
export const historyActionSchema = z.enum(HISTORY_ACTIONS);
export type HistoryAction = z.infer<typeof historyActionSchema>;

export const RESOLUTIONS = ['auto', 'manual'] as const;
export const resolutionSchema = z.enum(RESOLUTIONS);

export { INSPECTION_KIND_LABELS, INSPECTION_KINDS };
export const inspectionKindSchema = z.enum(INSPECTION_KINDS);
export type InspectionKind = z.infer<typeof inspectionKindSchema>;

export const alertHistoryEntrySchema = z.object({
  seq: z.number().int(),
  /** When the change was recorded (gateway clock). */
  at: iso,
  /** Source time of the condition behind the change, when it came from data. */
  sourceAt: iso.optional(),
  /** `system` or the name of the person. */
  actor: z.string(),
  action: historyActionSchema,
  detail: z.record(z.string(), z.unknown()),
  ...logged,
});
export type AlertHistoryEntry = z.infer<typeof alertHistoryEntrySchema>;

export const alertDtoSchema = z.object({
  id: z.string(),
  rule: ruleIdSchema,
  siteId: z.string(),
  deviceId: z.string().optional(),
  status: alertStatusSchema,
  /** status !== 'resolved' and now > dueAt. */
  overdue: z.boolean(),
  /** Source time the condition began. */
  raisedAt: iso,
  /** Null for alerts without a deadline (e.g. a silent device). */
  dueAt: iso.nullable(),
  /** The deadline the rule set; differs from dueAt once an engineer's extension has moved it. */
  originalDueAt: iso.optional(),
  acknowledgedAt: iso.optional(),
  acknowledgedBy: z.string().optional(),
  resolvedAt: iso.optional(),
  /** Whether it was resolved by its due time (absent while unresolved or without a deadline). */
  withinDeadline: z.boolean().optional(),
  resolution: z
    .object({
      how: resolutionSchema,
      by: z.string(),
      message: z.string().optional(),
      evidence: z.record(z.string(), z.unknown()),
      /** What closed it (an inspection, a notice's approval, the readings, ...); none on older resolutions. */
      cause: resolutionCauseSchema.optional(),
    })
    .optional(),
  message: z.string(),
  evidence: z.record(z.string(), z.unknown()),
  /**
   * The evidence in words: the rule's labelled sentences, then the other recorded values, times in the
   * site's zone. Answers of the alert routes carry it (not the live feed, notifications or reports).
   */
  evidenceText: z.array(factLineSchema).optional(),
  /**
   * An alarm input's alert (its evidence names the `input`): whether the device's newest reading still
   * reports the alarm. Answers of the alert routes carry it.
   */
  alarm: z.object({ input: z.string(), active: z.boolean() }).optional(),
  history: z.array(alertHistoryEntrySchema),
  /**
   * Notifications (MQTT, webhooks, e-mail) carry the latest entries of the history only: how many earlier
   * entries this copy leaves out. The full history is at GET /api/alerts/{id}.
   */
  historyOmitted: z.number().int().min(1).optional(),
});
export type AlertDto = z.infer<typeof alertDtoSchema>;

/** The history entries a notification's copy of an alert carries: the latest. */
export const NOTIFIED_HISTORY = 5;

export const STORM_INSPECTION_STATUSES = ['not-required', 'pending', 'on-time', 'late', 'missing'] as const;

export const stormDtoSchema = z.object({
  id: z.string(),
  siteId: z.string(),
  deviceId: z.string(),
  start: iso,
  end: iso,
  tips: z.number(),
  inches: z.number(),
  qualified: z.boolean(),
  thresholdAt: iso.optional(),
  dueAt: iso.optional(),
  closed: z.boolean(),
  inspection: z.object({
    /** not-required (did not qualify), pending (not yet due), on-time, late, missing (due passed, none). */
    status: z.enum(STORM_INSPECTION_STATUSES),
    inspectionId: z.string().optional(),
    inspectedAt: iso.optional(),
  }),
  /**
   * Inspections made while the storm still rained (from its first tip to its last): shown with the
   * storm, they do not meet its duty (the inspection must follow the storm).
   */
  inspectedDuring: z.array(z.object({ inspectionId: z.string(), inspectedAt: iso })).optional(),
  ...logged,
});
export type StormDto = z.infer<typeof stormDtoSchema>;

/** How an inspection's report reached the officer: the agenda, or an e-mail (its state and time). */
export const reportDeliverySchema = z.object({
  channel: z.enum(['agenda', 'email']),
  /** "the officer's agenda", or the address. */
  to: z.string(),
  status: z.enum(['delivered', 'pending', 'failed']),
  /** When it was delivered (null while pending or failed). */
  at: iso.nullable(),
});
export type ReportDelivery = z.infer<typeof reportDeliverySchema>;

export const inspectionDtoSchema = z.object({
  id: z.string(),
  siteId: z.string(),
  at: iso,
  inspector: z.string(),
  kind: inspectionKindSchema,
  notes: z.string(),
  /** What it found at each practice, with the photos' hashes (construction sites). */
  findings: z.array(findingSchema).optional(),
  /** An annual inspection's deficiencies, each with its id (`insp-.../1`), which a later one names remedied. */
  deficiencies: z.array(deficiencySchema.extend({ id: z.string() })).optional(),
  remedied: inspectionDetailsSchema.shape.remedied,
  /** A pump-out's hauler and DEC permit number. */
  hauler: inspectionDetailsSchema.shape.hauler,
  /** Whose inspection it is (rows recorded before sides were kept are the developer's). */
  side: inspectionSideSchema,
  /** At a site with practices: how many it covered of how many the site had. */
  coverage: inspectionCoverageSchema.optional(),
  /** The inspector's signature, when it was signed (none on inspections recorded without one). */
  signature: signatureSchema.optional(),
  recordedAt: iso,
  recordedBy: z.string(),
  hash: z.string(),
  ...logged,
  /**
   * Its report's delivery to the Stormwater Management Officer (law 001: "The reports shall be delivered
   * to the Stormwater Management Officer"): on the officer's agenda from its recording, and by e-mail to
   * each officer of the site with an address; each with its state and time.
   */
  deliveries: z.array(reportDeliverySchema).optional(),
});
export type InspectionDto = z.infer<typeof inspectionDtoSchema>;

/** POST /api/inspections: the inspection recorded and the alerts it closed. */
export const inspectionRecordedSchema = z.object({
  inspection: inspectionDtoSchema,
  closedAlertIds: z.array(z.string()),
});
export type InspectionRecorded = z.infer<typeof inspectionRecordedSchema>;

export const extensionDtoSchema = z.object({
  seq: z.number().int(),
  alertId: z.string(),
  siteId: z.string(),
  rule: ruleIdSchema,
  oldDueAt: iso,
  newDueAt: iso,
  engineer: z.string(),
  letterRef: z.string(),
  note: z.string().optional(),
  at: iso,
  by: z.string(),
  hash: z.string(),
  ...logged,
});
export type ExtensionDto = z.infer<typeof extensionDtoSchema>;

/**
 * `violation`: a notice of violation served on the site's developer and owner (its payload is the notice).
 * `inspection-report`: an inspection's report delivered to the site's officer (its payload is the inspection).
 * `stop-work`: a stop-work order served on the site's developer and owner, or the notice that it is lifted
 * (its payload is the order with the parties on file: `stopWorkServedSchema`).
 */
export const NOTIFICATION_KINDS = [
  'raise',
  'reminder',
  'overdue',
  'extension',
  'resolve',
  'violation',
  'inspection-report',
  'stop-work',
] as const;
export const notificationKindSchema = z.enum(NOTIFICATION_KINDS);
export type NotificationKind = z.infer<typeof notificationKindSchema>;

export const CHANNELS = ['mqtt', 'webhook', 'email'] as const;
export const channelSchema = z.enum(CHANNELS);
export type Channel = z.infer<typeof channelSchema>;

export const DELIVERY_STATUSES = ['pending', 'sent', 'failed'] as const;
export const deliveryStatusSchema = z.enum(DELIVERY_STATUSES);
export type DeliveryStatus = z.infer<typeof deliveryStatusSchema>;

/** A notification delivery as the API shows it (webhook URLs without user info or query string). */
export const deliveryViewSchema = z.object({
  id: z.number(),
  eventId: z.string(),
  kind: z.string().nullable(),
  alertId: z.string().nullable(),
  siteId: z.string().nullable(),
  rule: z.string().nullable(),
  channel: channelSchema,
  target: z.string(),
  status: deliveryStatusSchema,
  attempts: z.number(),
  nextAt: iso.nullable(),
  lastError: z.string().nullable(),
  sentAt: iso.nullable(),
  createdAt: iso.nullable(),
});
export type DeliveryView = z.infer<typeof deliveryViewSchema>;

/**
 * An alert change as the InfluxDB output writes it (measurement `alerts`): tags site, rule and
 * device; the rest fields. Times are epoch milliseconds here.
 */
export const alertChangePointSchema = z.object({
  siteId: z.string(),
  rule: ruleIdSchema,
  alertId: z.string(),
  deviceId: z.string().optional(),
  status: z.string(),
  overdue: z.boolean(),
  /** Time of the change, epoch ms. */
  at: z.number(),
  dueAt: z.number().optional(),
  action: z.string(),
  by: z.string().optional(),
  /** The site's unresolved duties of the rule after the change, and how many of them are overdue. */
  duties: z.object({ open: z.number(), overdue: z.number() }).optional(),
});
export type AlertChangePoint = z.infer<typeof alertChangePointSchema>;
