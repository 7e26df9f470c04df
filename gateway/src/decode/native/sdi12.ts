/**
 * The SDI-12 decoder: a measurement the SDI-12 input made through its adapter (`Sdi12Measurement`: when
 * it was made, by the gateway's clock, the sensor's address and the values `aD0!`, `aD1!`, … returned),
 * on the topic `sdi12:<siteId>/<deviceId>`, mapped through the device's profile (each field's `index`,
 * counted from 1) to the gateway's telemetry object, stamped with the measurement's time. Pure.
 */
import { z } from 'zod';
import { reject } from '../decode.ts';
import { mapFields } from '../profiles/map.ts';
import type { NativeDecoder } from './types.ts';

export const sdi12MeasurementSchema = z.strictObject({
  /** The gateway's clock when the values came, epoch ms. */
  measuredAt: z.number().int().min(0),
  /** The sensor's SDI-12 address. */
  address: z.string().regex(/^[0-9A-Za-z]$/),
  /** The measurement command sent (`M`, `MC`, `C`, `CC`, with an optional digit). */
  command: z.string().regex(/^(M|MC|C|CC)[1-9]?$/),
  /** The values in the order the sensor returned them. */
  values: z.array(z.number().finite()).max(99),
});
export type Sdi12Measurement = z.infer<typeof sdi12MeasurementSchema>;

/** The topic of a device's measurements. */
export const sdi12Topic = (siteId: string, deviceId: string): string => `sdi12:${siteId}/${deviceId}`;

const TOPIC = /^sdi12:([^/]+)\/([^/]+)$/;

export const decodeSdi12: NativeDecoder = (msg, registry, ctx) => {
  const t = TOPIC.exec(msg.topic);
  if (!t) return reject('bad_topic', `not an SDI-12 device: ${msg.topic}`);
  const [, siteId, deviceId] = t as unknown as [string, string, string];
  const device = registry.lookup(siteId, deviceId);
  if (!device)
    return reject(
      'unregistered_device',
      `device ${siteId}/${deviceId} is not in the configuration`,
      siteId,
      deviceId,
    );
  if (device.device.transport !== 'sdi12')
    return reject('bad_topic', `device ${siteId}/${deviceId} is not an SDI-12 device`, siteId, deviceId);
  const profile = ctx.profileOf(device);
  if (profile?.transport !== 'sdi12')
    return reject('bad_topic', `device ${siteId}/${deviceId} has no SDI-12 profile`, siteId, deviceId);
  let json: unknown;
  try {
    json = JSON.parse(typeof msg.payload === 'string' ? msg.payload : msg.payload.toString('utf8'));
  } catch (e) {
    return reject('malformed_json', `malformed JSON: ${(e as Error).message}`, siteId, deviceId);
  }
  const parsed = sdi12MeasurementSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return reject(
      'wrong_type',
      `${issue.path.join('.') || '(measurement)'}: ${issue.message}`,
      siteId,
      deviceId,
    );
  }
  const m = parsed.data;
  const mapped = mapFields(
    profile,
    (f) => {
      const v = m.values[f.from.index - 1];
      return v === undefined
        ? { error: `the sensor returned ${m.values.length} values, not the ${ordinal(f.from.index)}` }
        : v;
    },
    { mountHeightIn: device.device.mountHeightIn, kind: device.kind },
    ctx.mapping(device),
  );
  if (!mapped.ok) return reject('out_of_range', mapped.detail, siteId, deviceId);
  return { ok: true, device, telemetry: { ts: m.measuredAt, ...mapped.telemetry } };
};

const ordinal = (n: number): string => {
  const tens = n % 100;
  const suffix =
    tens >= 11 && tens <= 13 ? 'th' : n % 10 === 1 ? 'st' : n % 10 === 2 ? 'nd' : n % 10 === 3 ? 'rd' : 'th';
  return `${n}${suffix}`;
};
