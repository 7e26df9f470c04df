/**
 * Sites and devices as the API shows them, their readings (GET /api/telemetry), the messages the gateway
 * rejected, and the points InfluxDB refused for good.
 */
import { z } from 'zod';
import { siteHistory } from '../admin.ts';
import { DEVICE_TRANSPORTS, modbusPlacement, sdi12Placement } from '../fieldbus.ts';
import { lawOverridesSchema } from '../lawFigures.ts';
import { REJECT_REASONS } from '../telemetry.ts';
import { isoTime } from './common.ts';
import { developerInspectorsSchema, practiceSchema } from './findings.ts';
import { partySchema, stopWorkDtoSchema, workHaltedSchema } from './violations.ts';

const values = z.record(z.string(), z.number());
const alarms = z.record(z.string(), z.boolean());

/**
 * A device of a site. Its rule parameters (design depth, high level, silence interval, …) come as further
 * keys, named by the rule modules, so the object is open.
 */
export const deviceViewSchema = z.looseObject({
  id: z.string(),
  kind: z.string(),
  name: z.string().optional(),
  role: z.string().optional(),
  inchesPerTip: z.number().optional(),
  /** LoRaWAN, Modbus RTU, SDI-12 (absent: the gateway's own JSON): how it connects, and its profile's name. */
  transport: z.enum(DEVICE_TRANSPORTS).optional(),
  profile: z.string().optional(),
  devEui: z.string().optional(),
  /** LoRaWAN: the network server(s) its uplinks come through, in words ("ChirpStack"). */
  networkServer: z.string().optional(),
  modbus: modbusPlacement.optional(),
  sdi12: sdi12Placement.optional(),
  mountHeightIn: z.number().optional(),
  status: z.string(),
  statusAt: isoTime.nullable(),
  lastReadingAt: isoTime.nullable(),
  lastReceivedAt: isoTime.nullable(),
  /** GET /api/sites/{id} only: the latest value of every field, with its time. */
  latest: z.record(z.string(), z.object({ value: z.unknown(), ts: isoTime })).optional(),
});
export type DeviceView = z.infer<typeof deviceViewSchema>;

export const siteViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.string(),
  timezone: z.string(),
  active: z.boolean(),
  /** Its history on record (the last inspections and pump-out before the gateway), when it has one. */
  history: siteHistory.optional(),
  /** Construction sites: the practices an inspection looks at, and to whom a notice is directed. */
  practices: z.array(practiceSchema).optional(),
  landowner: partySchema.optional(),
  developer: partySchema.optional(),
  address: z.string().optional(),
  /** The town's accounts that record the developer's side of an inspection here (e-mail or token name). */
  developerInspectors: developerInspectorsSchema.optional(),
  /** Why a figure is set looser than the law, by the figure's id, while it is. */
  lawOverrides: lawOverridesSchema.optional(),
  /**
   * A notice's appeal here: the days after service under the site's law, with the town's reason where the
   * days are its choice (law 000 names none: `enforcement.wastewaterAppeal`).
   */
  appeal: z.object({ days: z.number(), reason: z.string().optional() }).optional(),
  /** The stop-work order in effect, if any. */
  stopWork: stopWorkDtoSchema.nullable().optional(),
  /** Work halted by a violation finding not yet corrected and approved, if any. */
  workHalted: workHaltedSchema.nullable().optional(),
  retiredDevices: z.array(z.string()),
  devices: z.array(deviceViewSchema),
});
export type SiteView = z.infer<typeof siteViewSchema>;

/** PATCH of a device that retired it. */
export const deviceRetiredSchema = z.object({
  siteId: z.string(),
  deviceId: z.string(),
  retired: z.literal(true),
});

/** PATCH /api/sites/{siteId}/devices/{deviceId}: the device as it is now, or that it retired. */
export const devicePatchedSchema = z.union([deviceRetiredSchema, deviceViewSchema]);

export const storedReadingViewSchema = z.object({
  deviceId: z.string(),
  ts: isoTime,
  seq: z.number().optional(),
  values,
  alarms: alarms.optional(),
  /** Its entry in the evidence log (GET /api/evidence/inclusion?index= proves it). */
  logIndex: z.number().optional(),
  leafHash: z.string().optional(),
});

const telemetryBase = {
  siteId: z.string(),
  deviceId: z.string().nullable(),
  from: isoTime,
  to: isoTime,
};

/** GET /api/telemetry without a field: the readings themselves, up to maxPoints. */
export const telemetryReadingsSchema = z.object({
  ...telemetryBase,
  truncated: z.boolean(),
  readings: z.array(storedReadingViewSchema),
});

/** GET /api/telemetry with a field: its points, bucketed (bucketMs) once there are more than maxPoints. */
export const telemetryPointsSchema = z.object({
  ...telemetryBase,
  field: z.string(),
  bucketMs: z.number().nullable(),
  points: z.array(
    z.object({
      ts: isoTime,
      value: z.number(),
      min: z.number().optional(),
      max: z.number().optional(),
      /** The bucket's last value. */
      last: z.number().optional(),
      n: z.number().optional(),
    }),
  ),
});

export const telemetryAnswerSchema = z.union([telemetryReadingsSchema, telemetryPointsSchema]);
export type TelemetryAnswer = z.infer<typeof telemetryAnswerSchema>;

/** GET /api/rejections: a rejected message with its reason. */
export const rejectionSchema = z.object({
  id: z.number(),
  at: isoTime,
  transport: z.string(),
  topic: z.string(),
  siteId: z.string().optional(),
  deviceId: z.string().optional(),
  reason: z.enum(REJECT_REASONS),
  detail: z.string(),
  excerpt: z.string(),
  /** How many more like it were counted but not kept. */
  suppressed: z.number(),
});
export type Rejection = z.infer<typeof rejectionSchema>;

/** GET /api/influx/dead-letters: a point InfluxDB refused for good. */
export const deadLetterSchema = z.object({
  id: z.number(),
  source: z.enum(['readings', 'outbox']),
  outboxId: z.number().nullable(),
  line: z.string().nullable(),
  reason: z.string().nullable(),
  /** Epoch ms. */
  at: z.number().nullable(),
});
export type DeadLetter = z.infer<typeof deadLetterSchema>;
