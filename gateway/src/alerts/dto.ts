/**
 * The shapes the alert engine hands to the API, reports and notifications. Times are ISO 8601 UTC.
 */
import { z } from 'zod';
import { RULE_IDS } from '../rules/index.ts';

const iso = z.iso.datetime();

/** Where a record stands in the evidence log: its entry's index and leaf hash (base64). */
const logged = {
  logIndex: z.number().int().optional(),
  leafHash: z.string().optional(),
};

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

export const INSPECTION_KINDS = ['routine', 'storm', 'annual', 'cleanout', 'other'] as const;
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
  rule: z.enum(RULE_IDS),
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
    })
    .optional(),
  message: z.string(),
  evidence: z.record(z.string(), z.unknown()),
  history: z.array(alertHistoryEntrySchema),
});
export type AlertDto = z.infer<typeof alertDtoSchema>;

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
  ...logged,
});
export type StormDto = z.infer<typeof stormDtoSchema>;

export const inspectionDtoSchema = z.object({
  id: z.string(),
  siteId: z.string(),
  at: iso,
  inspector: z.string(),
  kind: inspectionKindSchema,
  notes: z.string(),
  recordedAt: iso,
  recordedBy: z.string(),
  hash: z.string(),
  ...logged,
});
export type InspectionDto = z.infer<typeof inspectionDtoSchema>;

export const extensionDtoSchema = z.object({
  seq: z.number().int(),
  alertId: z.string(),
  siteId: z.string(),
  rule: z.enum(RULE_IDS),
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

export const toIso = (ms: number): string => new Date(ms).toISOString();
