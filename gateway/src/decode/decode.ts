/**
 * Pure decoding and validation of device messages: bytes in, a Reading or a reasoned rejection out.
 * No I/O, no clock: the arrival time is an argument.
 */
import type { z } from 'zod';
import { crc16ccitt } from '../../../shared/src/crc16.ts';
import {
  type DeviceKind,
  FIELDS_BY_KIND,
  READING_NAMES,
  type Reading,
  type RejectReason,
  serialPayloadSchema,
  telemetryPayloadSchema,
} from '../../../shared/src/telemetry.ts';
import { parseDeviceTopic } from '../../../shared/src/topics.ts';
import { quickTelemetry } from './quick.ts';

export interface DecodeOptions {
  maxPayloadBytes: number;
  /** How far ahead of the arrival time a source timestamp may be, in ms. */
  maxFutureMs: number;
}

export type Rejection = {
  ok: false;
  reason: RejectReason;
  detail: string;
  siteId?: string;
  deviceId?: string;
  /** For a timestamp ahead of the clock: the time the device stamped. */
  ts?: number;
};
/** What the decoder needs of a registered device (the configuration's registry gives more). */
export interface DecodeDevice {
  siteId: string;
  deviceId: string;
  kind: DeviceKind;
  device: { liquidDepthIn?: number | undefined };
}

/** Where the decoder finds a message's device. */
export interface DecodeRegistry<D extends DecodeDevice> {
  lookup(siteId: string, deviceId: string): D | undefined;
}

export type DecodeResult<D extends DecodeDevice = DecodeDevice> =
  | { ok: true; reading: Reading; device: D }
  | Rejection;

export const reject = (
  reason: RejectReason,
  detail: string,
  siteId?: string,
  deviceId?: string,
): Rejection => ({
  ok: false,
  reason,
  detail,
  ...(siteId !== undefined ? { siteId } : {}),
  ...(deviceId !== undefined ? { deviceId } : {}),
});

/** The rejection of a message from a device the configuration does not name. */
export const unregistered = (siteId: string, deviceId: string): Rejection =>
  reject('unregistered_device', `device ${siteId}/${deviceId} is not in the configuration`, siteId, deviceId);

const ALWAYS_ALLOWED = new Set(['batteryV', 'rssi']);

/** Maps the first zod issue onto a stable reason, with a readable detail naming the field. */
export function zodRejection(err: z.ZodError, siteId?: string, deviceId?: string): Rejection {
  const issue = err.issues[0]!;
  const path = issue.path.join('.') || '(payload)';
  switch (issue.code) {
    case 'unrecognized_keys': {
      const prefix = issue.path.length ? `${issue.path.join('.')}.` : '';
      return reject(
        'unknown_field',
        `unknown field ${issue.keys.map((k) => prefix + k).join(', ')}`,
        siteId,
        deviceId,
      );
    }
    case 'too_big':
    case 'too_small':
      return reject('out_of_range', `${path}: ${issue.message}`, siteId, deviceId);
    case 'invalid_type':
      if (issue.path.length === 0)
        return reject('not_an_object', 'payload must be a JSON object', siteId, deviceId);
      return reject('wrong_type', `${path}: ${issue.message}`, siteId, deviceId);
    default:
      if (issue.path[0] === 'ts' && issue.code === 'invalid_union')
        return reject(
          'wrong_type',
          'ts: must be ISO 8601 with a zone, or epoch milliseconds after 2000',
          siteId,
          deviceId,
        );
      return reject('wrong_type', `${path}: ${issue.message}`, siteId, deviceId);
  }
}

function parseJson(
  text: string,
  siteId?: string,
  deviceId?: string,
): { ok: true; value: unknown } | Rejection {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return reject('malformed_json', `malformed JSON: ${(e as Error).message}`, siteId, deviceId);
  }
}

type Parsed = z.infer<typeof telemetryPayloadSchema>;

/** Checks shared by both transports, once the device is known and the payload is schema-valid. */
export function finish<D extends DecodeDevice>(
  p: Parsed,
  device: D,
  receivedAt: number,
  transport: Reading['transport'],
  opts: DecodeOptions,
): DecodeResult<D> {
  const { siteId, deviceId } = device;
  const allowed = FIELDS_BY_KIND[device.kind];
  const values: Reading['values'] = {};
  for (const name of READING_NAMES) {
    const v = p[name];
    if (v === undefined) continue;
    if (!ALWAYS_ALLOWED.has(name) && !allowed.includes(name))
      return reject('field_not_for_kind', `${name} is not a reading of a ${device.kind}`, siteId, deviceId);
    values[name] = v;
  }
  if (p.alarms !== undefined && !allowed.includes('alarms'))
    return reject('field_not_for_kind', `alarms are not a reading of a ${device.kind}`, siteId, deviceId);
  const depth = device.device.liquidDepthIn;
  if (depth !== undefined)
    for (const name of ['levelIn', 'sludgeIn', 'scumIn'] as const) {
      const v = values[name];
      if (v !== undefined && v > depth)
        return reject(
          'out_of_range',
          `${name} ${v} in is deeper than the tank (${depth} in)`,
          siteId,
          deviceId,
        );
    }
  if (values.sludgeIn !== undefined && values.scumIn !== undefined && depth !== undefined)
    if (values.sludgeIn + values.scumIn > depth)
      return reject(
        'out_of_range',
        `sludge + scum ${values.sludgeIn + values.scumIn} in exceed the tank depth (${depth} in)`,
        siteId,
        deviceId,
      );
  let ts = receivedAt;
  if (p.ts !== undefined) {
    ts = typeof p.ts === 'number' ? p.ts : Date.parse(p.ts);
    if (!Number.isFinite(ts))
      return reject('wrong_type', `ts: not a valid time: ${String(p.ts)}`, siteId, deviceId);
    if (ts > receivedAt + opts.maxFutureMs)
      return {
        ...reject(
          'future_timestamp',
          `ts ${new Date(ts).toISOString()} is ${Math.round((ts - receivedAt) / 1000)} s ahead of the gateway clock`,
          siteId,
          deviceId,
        ),
        ts,
      };
  }
  const reading: Reading = { siteId, deviceId, deviceKind: device.kind, ts, receivedAt, transport, values };
  if (p.ts === undefined) reading.arrivalTs = true;
  if (p.seq !== undefined) reading.seq = p.seq;
  if (p.alarms !== undefined) reading.alarms = p.alarms;
  return { ok: true, reading, device };
}

const byteLength = (payload: Buffer | string) =>
  typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;

/** Decodes one MQTT telemetry publish. The topic names the device; the payload must not. */
export function decodeMqttTelemetry<D extends DecodeDevice>(
  topic: string,
  payload: Buffer | string,
  receivedAt: number,
  registry: DecodeRegistry<D>,
  opts: DecodeOptions,
): DecodeResult<D> {
  const t = parseDeviceTopic(topic);
  if (t.kind !== 'telemetry') return reject('bad_topic', `not a telemetry topic: ${topic}`);
  const { siteId, deviceId } = t;
  const size = byteLength(payload);
  if (size > opts.maxPayloadBytes)
    return reject('oversize', `payload of ${size} bytes exceeds ${opts.maxPayloadBytes}`, siteId, deviceId);
  const device = registry.lookup(siteId, deviceId);
  if (!device) return unregistered(siteId, deviceId);
  const json = parseJson(typeof payload === 'string' ? payload : payload.toString('utf8'), siteId, deviceId);
  if (!json.ok) return json;
  const v = json.value as Record<string, unknown> | null;
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && ('siteId' in v || 'deviceId' in v)) {
    if (
      (v.siteId !== undefined && v.siteId !== siteId) ||
      (v.deviceId !== undefined && v.deviceId !== deviceId)
    )
      return reject(
        'topic_mismatch',
        `payload names ${String(v.siteId ?? siteId)}/${String(v.deviceId ?? deviceId)} but the topic is ${siteId}/${deviceId}`,
        siteId,
        deviceId,
      );
  }
  const quick = quickTelemetry(json.value);
  if (quick) return finish(quick, device, receivedAt, 'mqtt', opts);
  const parsed = telemetryPayloadSchema.safeParse(json.value);
  if (!parsed.success) return zodRejection(parsed.error, siteId, deviceId);
  return finish(parsed.data, device, receivedAt, 'mqtt', opts);
}

const CRC_SUFFIX = /\*([0-9A-Fa-f]{4})$/;

/** Decodes one serial line: a JSON object naming its device, optionally followed by `*XXXX` (CRC-16/CCITT-FALSE). */
export function decodeSerialLine<D extends DecodeDevice>(
  line: string,
  receivedAt: number,
  registry: DecodeRegistry<D>,
  opts: DecodeOptions,
): DecodeResult<D> {
  const size = Buffer.byteLength(line);
  if (size > opts.maxPayloadBytes + 5)
    return reject('oversize', `line of ${size} bytes exceeds ${opts.maxPayloadBytes}`);
  let text = line.trim();
  const m = CRC_SUFFIX.exec(text);
  if (m) {
    text = text.slice(0, m.index);
    const want = Number.parseInt(m[1]!, 16);
    const got = crc16ccitt(text);
    if (want !== got)
      return reject(
        'bad_crc',
        `CRC mismatch: line says ${m[1]!.toUpperCase()}, computed ${got.toString(16).toUpperCase().padStart(4, '0')}`,
      );
  }
  const json = parseJson(text);
  if (!json.ok) return json;
  const parsed = serialPayloadSchema.safeParse(json.value);
  if (!parsed.success) {
    const v = json.value as Record<string, unknown> | null;
    const ids =
      v && typeof v === 'object' && typeof v.siteId === 'string' && typeof v.deviceId === 'string'
        ? [v.siteId, v.deviceId]
        : [];
    return zodRejection(parsed.error, ids[0], ids[1]);
  }
  const { siteId, deviceId, ...rest } = parsed.data;
  const device = registry.lookup(siteId, deviceId);
  if (!device) return unregistered(siteId, deviceId);
  return finish(rest, device, receivedAt, 'serial', opts);
}
