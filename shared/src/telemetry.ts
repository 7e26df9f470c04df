import { z } from 'zod';

/** The alarm inputs a septic panel or holding-tank controller reports. */
export const ALARM_NAMES = ['highWater', 'pump', 'blower', 'panel', 'field'] as const;
export type AlarmName = (typeof ALARM_NAMES)[number];

/** The numeric readings a device may send, with the physical bounds beyond which a value is absurd. */
export const READING_BOUNDS = {
  rainTips: { min: 0, max: 1e9, int: true },
  rainIn: { min: 0, max: 20, int: false },
  levelIn: { min: 0, max: 600, int: false },
  sludgeIn: { min: 0, max: 600, int: false },
  scumIn: { min: 0, max: 600, int: false },
  sedimentIn: { min: 0, max: 600, int: false },
  turbidityNtu: { min: 0, max: 100_000, int: false },
  batteryV: { min: 0, max: 60, int: false },
  rssi: { min: -200, max: 0, int: false },
} as const;
export type ReadingName = keyof typeof READING_BOUNDS;
export const READING_NAMES = Object.keys(READING_BOUNDS) as ReadingName[];

const boundedNumber = (name: ReadingName) => {
  const b = READING_BOUNDS[name];
  let n = z.number().finite().min(b.min).max(b.max);
  if (b.int) n = n.int();
  return n.optional();
};

export const alarmsSchema = z.strictObject({
  highWater: z.boolean().optional(),
  pump: z.boolean().optional(),
  blower: z.boolean().optional(),
  panel: z.boolean().optional(),
  field: z.boolean().optional(),
});
export type Alarms = z.infer<typeof alarmsSchema>;

/** Earliest source timestamp accepted (2000-01-01): anything older is a device clock that was never set. */
export const MIN_SOURCE_TS = Date.UTC(2000, 0, 1);

export const timestampSchema = z.union([
  z.iso.datetime({ offset: true }).max(40),
  z.number().int().min(MIN_SOURCE_TS).max(8.64e15),
]);

const readingShape = {
  rainTips: boundedNumber('rainTips'),
  rainIn: boundedNumber('rainIn'),
  levelIn: boundedNumber('levelIn'),
  sludgeIn: boundedNumber('sludgeIn'),
  scumIn: boundedNumber('scumIn'),
  sedimentIn: boundedNumber('sedimentIn'),
  turbidityNtu: boundedNumber('turbidityNtu'),
  batteryV: boundedNumber('batteryV'),
  rssi: boundedNumber('rssi'),
  alarms: alarmsSchema.optional(),
};

/** The MQTT telemetry payload: one flat JSON object (docs/devices.md). Unknown fields are rejected. */
export const telemetryPayloadSchema = z.strictObject({
  ts: timestampSchema.optional(),
  seq: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  ...readingShape,
});
export type TelemetryPayload = z.infer<typeof telemetryPayloadSchema>;

/** A serial line: the same object, with the device named inside it. */
export const serialPayloadSchema = z.strictObject({
  siteId: z.string().min(1).max(64),
  deviceId: z.string().min(1).max(64),
  ts: timestampSchema.optional(),
  seq: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  ...readingShape,
});
export type SerialPayload = z.infer<typeof serialPayloadSchema>;

/** The device status payload on `.../status` (retained, and the last will). */
export const deviceStatusSchema = z.union([
  z.enum(['online', 'offline']),
  z.strictObject({ status: z.enum(['online', 'offline']), ts: timestampSchema.optional() }),
]);

export const DEVICE_KINDS = [
  'rain-gauge',
  'sediment-trap',
  'turbidity',
  'septic-panel',
  'septic-tank',
  'holding-tank',
] as const;
export type DeviceKind = (typeof DEVICE_KINDS)[number];

/** Which readings make sense for each kind of device; batteryV and rssi are allowed for all. */
export const FIELDS_BY_KIND: Record<DeviceKind, readonly (ReadingName | 'alarms')[]> = {
  'rain-gauge': ['rainTips', 'rainIn'],
  'sediment-trap': ['sedimentIn', 'levelIn'],
  turbidity: ['turbidityNtu'],
  'septic-panel': ['levelIn', 'sludgeIn', 'scumIn', 'alarms'],
  'septic-tank': ['levelIn', 'sludgeIn', 'scumIn', 'alarms'],
  'holding-tank': ['levelIn', 'alarms'],
};

/** The reasons a message is rejected. Stable identifiers: they label metrics and appear in the API. */
export const REJECT_REASONS = [
  'oversize',
  'malformed_json',
  'not_an_object',
  'unknown_field',
  'wrong_type',
  'out_of_range',
  'field_not_for_kind',
  'unregistered_device',
  'topic_mismatch',
  'bad_topic',
  'future_timestamp',
  'bad_crc',
  'rate_limited',
  'not_authorized',
  'implausible_rate',
  /** A device's share of the quarantine, or the quarantine in all, is full (ingest.quarantinePerDevice, ingest.quarantineTotal): refused until some of it is released. */
  'quarantine_full',
] as const;
export type RejectReason = (typeof REJECT_REASONS)[number];

/** A validated reading, as every stage after decoding sees it. Times are epoch milliseconds, UTC. */
export interface Reading {
  siteId: string;
  deviceId: string;
  deviceKind: DeviceKind;
  /** Source timestamp (the device's clock), or the arrival time when the device sent none. */
  ts: number;
  /** True when the device sent no timestamp and `ts` is the arrival time. */
  arrivalTs?: boolean;
  seq?: number;
  receivedAt: number;
  transport: 'mqtt' | 'serial' | 'import' | 'api' | 'lorawan' | 'modbus' | 'sdi12';
  values: Partial<Record<ReadingName, number>>;
  alarms?: Alarms;
}
