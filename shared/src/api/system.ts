/**
 * The gateway's own state: health, the evidence log (summary, key, checkpoints, proofs, entries), the
 * live feed's events (GET /api/events), logger imports and the compliance report's JSON envelope.
 */
import { z } from 'zod';
import { alertDtoSchema, inspectionDtoSchema, stormDtoSchema } from './alerts.ts';
import { isoTime } from './common.ts';

/** A part's health: its name, whether it is well, and what it adds of its own. */
export const componentHealthSchema = z.looseObject({
  name: z.string(),
  ok: z.boolean(),
  detail: z.string().optional(),
});

/**
 * An optional part of the gateway (PDF printing, e-mail, InfluxDB, copies of the checkpoints off the box):
 * whether it works here, and in words what it does or why it does not and what would make it.
 */
export const capabilitySchema = z.object({
  name: z.enum(['pdf', 'email', 'influxdb', 'offBox']),
  /** What it is, in words ("Printing reports and notices to PDF"). */
  label: z.string(),
  available: z.boolean(),
  /** What it does here, or why not and what to set. */
  words: z.string(),
});
export type Capability = z.infer<typeof capabilitySchema>;

export const healthSchema = z.object({
  status: z.enum(['ok', 'degraded']),
  gatewayId: z.string(),
  startedAt: isoTime,
  uptimeSeconds: z.number(),
  components: z.array(componentHealthSchema),
  capabilities: z.array(capabilitySchema),
});
export type Health = z.infer<typeof healthSchema>;

/**
 * What the dashboard learns before anyone signs in, from GET /api/health: whether a visitor who is not
 * signed in sees the public view (`http.publicView`), and the gateway's configured time zone (`timezone`),
 * which times that belong to no one site are shown in.
 */
export const gatewayFactsSchema = z.object({
  publicView: z.boolean(),
  timezone: z.string(),
});
export type GatewayFacts = z.infer<typeof gatewayFactsSchema>;

/**
 * GET /api/health: the whole report, or to an unauthenticated probe its status alone with the gateway's
 * facts (`gatewayFactsSchema`); both carry the facts.
 */
export const healthAnswerSchema = z.union([
  healthSchema.extend(gatewayFactsSchema.shape),
  z.strictObject({ status: z.enum(['ok', 'degraded']), ...gatewayFactsSchema.shape }),
]);

export const checkpointViewSchema = z.object({
  size: z.number(),
  /** The tree's root hash, base64. */
  root: z.string(),
  at: isoTime,
  /** The signed note (C2SP signed-note text). */
  note: z.string(),
});

/** GET /api/evidence. */
export const evidenceSummarySchema = z.looseObject({
  size: z.number(),
  root: z.string(),
  checkpoint: checkpointViewSchema,
  /** The audit of the store against the log (the evidence stage's health). */
  audit: componentHealthSchema,
});

export const evidenceKeySchema = z.object({
  origin: z.string(),
  verifierKey: z.string(),
  fingerprint: z
    .string()
    .describe(
      'SHA-256 of the verifier key line, its first 16 hex digits in groups of four: to compare with the one the town publishes.',
    ),
  publicKey: z.string(),
  pem: z.string(),
});

export type EvidenceKey = z.infer<typeof evidenceKeySchema>;

export const consistencyProofSchema = z.object({
  from: z.number(),
  to: z.number(),
  proof: z.array(z.string()),
});

export const inclusionProofSchema = z.object({
  index: z.number(),
  size: z.number(),
  leaf: z.string(),
  proof: z.array(z.string()),
});

export const logEntrySchema = z.object({
  index: z.number(),
  kind: z.string(),
  ref: z.string(),
  at: isoTime,
  /** The record as hashed (null for a reading the store no longer holds). */
  body: z.unknown(),
  leaf: z.string(),
});

/** The live feed's events, by event name, with their data. */
export const liveEventSchemas = {
  hello: z.object({ gatewayId: z.string() }),
  alert: z.object({ action: z.string(), alert: alertDtoSchema }),
  storm: stormDtoSchema,
  inspection: inspectionDtoSchema,
  readings: z.object({
    count: z.number(),
    latest: z.array(
      z.object({
        siteId: z.string(),
        deviceId: z.string(),
        ts: isoTime,
        values: z.record(z.string(), z.number()),
        alarms: z.record(z.string(), z.boolean()).optional(),
      }),
    ),
  }),
  'device-status': z.object({ siteId: z.string(), deviceId: z.string(), status: z.string(), at: isoTime }),
  /** The feed ends: why. */
  closed: z.object({ reason: z.string() }),
} as const;
export type LiveEventName = keyof typeof liveEventSchemas;
export type LiveEvent<N extends LiveEventName> = z.infer<(typeof liveEventSchemas)[N]>;

/** POST /api/import: what a logger file gave. */
export const importSummarySchema = z.looseObject({
  file: z.string(),
  format: z.string(),
  siteId: z.string(),
  deviceId: z.string(),
  lines: z.number(),
  rows: z.number(),
  rawTips: z.number(),
  tips: z.number(),
  bouncesRemoved: z.number(),
  installationTips: z.number(),
  downloadTips: z.number(),
  skippedByReason: z.record(z.string(), z.number()),
  problems: z.array(z.looseObject({})),
  firstTip: isoTime.nullable(),
  lastTip: isoTime.nullable(),
  baselineAt: isoTime.nullable(),
  tipMm: z.number().optional(),
  totalMm: z.number().optional(),
  totalIn: z.number().optional(),
  readings: z.number(),
  stored: z.number(),
  duplicates: z.number(),
  rejected: z.number(),
  rejectedByReason: z.record(z.string(), z.number()),
  endCount: z.number(),
  nextSeq: z.number(),
  meta: z.looseObject({}),
});
export type ImportSummaryView = z.infer<typeof importSummarySchema>;

/** A certification of a site's records for a period, as reports and POST .../certify show it. */
export const certificationSchema = z.object({
  logIndex: z.number(),
  by: z.string(),
  role: z.string(),
  at: isoTime,
  statement: z.string(),
  period: z.object({ from: isoTime, to: isoTime }),
  checkpoint: z.object({ size: z.number(), root: z.string() }),
});
export type Certification = z.infer<typeof certificationSchema>;

/**
 * The compliance report's JSON envelope (GET /api/reports/compliance?format=json): its head is fixed,
 * its sections are the rules' and the evidence's, so they are open here.
 */
export const complianceReportSchema = z.looseObject({
  warnings: z.array(z.string()),
  site: z.object({ id: z.string(), name: z.string(), kind: z.string(), timezone: z.string() }),
  period: z.object({ from: isoTime, to: isoTime, firstDay: z.string(), lastDay: z.string() }),
  generatedAt: isoTime,
  generatedBy: z.string(),
  summary: z.record(z.string(), z.number()),
  storms: z.array(stormDtoSchema),
  inspections: z.array(inspectionDtoSchema),
  certifications: z.array(certificationSchema),
  evidence: z.looseObject({
    checkpoint: z.object({ origin: z.string(), size: z.number(), root: z.string(), note: z.string() }),
    verifierKey: z.string(),
  }),
});
