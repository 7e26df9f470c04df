/**
 * A LoRaWAN uplink as a network server published it (ChirpStack v4 or The Things Stack v3, told apart by
 * the topic: lorawanShapes.ts), decoded into the gateway's telemetry object: the device found by its
 * DevEUI, the network server's time as `ts`, the frame counter as `seq`, and the device's profile
 * applied (a `{path}` into the codec's decoded object, or `{byte, …}` into the frame, only on its
 * `fPort` when it names one). Pure.
 *
 * A DevEUI no device has yet is refused as `unregistered_device` under a stand-in identity, site
 * `lorawan` and device `eui-<deveui>` (lower case), so the quarantine keeps it; once a device with that
 * DevEUI is added, its uplinks are released as that device's readings (decoded again, found by DevEUI).
 */
import { reject } from '../decode.ts';
import { mapFields, type RawValue, readNumber } from '../profiles/map.ts';
import type { LorawanProfile, LorawanSource } from '../profiles/schema.ts';
import {
  CHIRPSTACK_UP,
  chirpstackUplinkSchema,
  fromChirpstack,
  fromThingsStack,
  THINGS_STACK_UP,
  thingsStackUplinkSchema,
  type Uplink,
} from './lorawanShapes.ts';
import type { NativeDecoder } from './types.ts';

/** The site under which uplinks of a DevEUI no device has yet wait in the quarantine. */
export const UNKNOWN_EUI_SITE = 'lorawan';

/** The stand-in device id of an unknown DevEUI: `eui-<deveui>`. */
export const unknownEuiDevice = (devEui: string): string => `eui-${devEui.toLowerCase()}`;

/** The stand-in identity an unknown DevEUI's uplinks wait under. */
export const unknownEuiIdentity = (devEui: string) => ({
  siteId: UNKNOWN_EUI_SITE,
  deviceId: unknownEuiDevice(devEui),
});

/** The uplink of a message, or why it is not one. */
function parseUplink(
  topic: string,
  text: string,
):
  | { ok: true; uplink: Uplink }
  | {
      ok: false;
      reason: 'bad_topic' | 'malformed_json' | 'wrong_type' | 'topic_mismatch' | 'not_an_object';
      detail: string;
    } {
  const cs = CHIRPSTACK_UP.exec(topic);
  const tts = cs ? null : THINGS_STACK_UP.exec(topic);
  if (!cs && !tts)
    return {
      ok: false,
      reason: 'bad_topic',
      detail: `not the uplink topic of ChirpStack or The Things Stack: ${topic}`,
    };
  const server = cs ? 'ChirpStack' : 'The Things Stack';
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return {
      ok: false,
      reason: 'malformed_json',
      detail: `the uplink from ${server} is not readable JSON: ${(e as Error).message}`,
    };
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json))
    return { ok: false, reason: 'not_an_object', detail: `the uplink from ${server} is not a JSON object` };
  if (cs) {
    const p = chirpstackUplinkSchema.safeParse(json);
    if (!p.success) return { ok: false, reason: 'wrong_type', detail: shapeDetail(server, p.error) };
    const uplink = fromChirpstack(p.data);
    if (uplink.devEui !== cs[2]!.toLowerCase())
      return {
        ok: false,
        reason: 'topic_mismatch',
        detail: `the uplink names DevEUI ${uplink.devEui} but its topic ${cs[2]!.toLowerCase()}`,
      };
    return { ok: true, uplink };
  }
  const p = thingsStackUplinkSchema.safeParse(json);
  if (!p.success) return { ok: false, reason: 'wrong_type', detail: shapeDetail(server, p.error) };
  const ids = p.data.end_device_ids;
  if (ids.dev_eui === undefined)
    return {
      ok: false,
      reason: 'wrong_type',
      detail: `the uplink of device ${ids.device_id} from The Things Stack names no DevEUI (register the device with its DevEUI)`,
    };
  if (ids.device_id !== tts![2])
    return {
      ok: false,
      reason: 'topic_mismatch',
      detail: `the uplink names device ${ids.device_id} but its topic ${tts![2]}`,
    };
  return { ok: true, uplink: fromThingsStack(p.data, ids.dev_eui.toLowerCase()) };
}

function shapeDetail(server: string, err: import('zod').ZodError): string {
  const issue = err.issues[0]!;
  const where = issue.path.join('.') || 'the message';
  return `not an uplink of ${server}: ${where}: ${issue.message}`;
}

/** The raw value of one field of a profile in an uplink. */
export function readUplink(src: LorawanSource, up: Pick<Uplink, 'fPort' | 'frame' | 'object'>): RawValue {
  if ('path' in src) {
    if (!up.object) return undefined;
    let v: unknown = up.object;
    for (const key of src.path.split('.')) {
      if (v === null || typeof v !== 'object') return undefined;
      v = (v as Record<string, unknown>)[key];
    }
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'number' || typeof v === 'boolean') return v;
    if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
    return { error: `the decoded value at ${src.path} is not a number (${JSON.stringify(v).slice(0, 40)})` };
  }
  if (src.fPort !== undefined && up.fPort !== src.fPort) return undefined;
  if (up.frame.length === 0) return undefined;
  const n = readNumber(up.frame, src.byte, src.format, src.byteOrder === 'little');
  if (n === undefined)
    return {
      error: `the frame has ${up.frame.length} bytes, too short for a ${src.format} at byte ${src.byte}`,
    };
  return src.bit === undefined ? n : Math.floor(n / 2 ** src.bit) % 2;
}

export const decodeLorawan: NativeDecoder = (msg, registry, ctx) => {
  const text = typeof msg.payload === 'string' ? msg.payload : msg.payload.toString('utf8');
  const parsed = parseUplink(msg.topic, text);
  if (!parsed.ok) return reject(parsed.reason, parsed.detail);
  const up = parsed.uplink;
  const device = registry.byDevEui(up.devEui);
  if (!device) {
    const id = unknownEuiIdentity(up.devEui);
    return reject(
      'unregistered_device',
      `no device has DevEUI ${up.devEui} yet (kept as ${id.siteId}/${id.deviceId} until one is added)`,
      id.siteId,
      id.deviceId,
    );
  }
  const { siteId, deviceId } = device;
  const profile = ctx.profileOf(device);
  if (profile?.transport !== 'lorawan')
    return reject(
      'wrong_type',
      profile
        ? `the device's profile ${profile.name} is not for LoRaWAN`
        : `the device has no profile: the gateway cannot read its uplinks`,
      siteId,
      deviceId,
    );
  const mapped = mapFields<LorawanProfile>(
    profile,
    (f) => readUplink(f.from, up),
    { mountHeightIn: device.device.mountHeightIn, kind: device.kind },
    ctx.mapping(device),
  );
  if (!mapped.ok) return reject('wrong_type', mapped.detail, siteId, deviceId);
  if (Object.keys(mapped.telemetry).length === 0)
    return reject(
      'wrong_type',
      `the uplink${up.fPort !== undefined ? ` on port ${up.fPort}` : ''} carries none of the readings of profile ${profile.name}`,
      siteId,
      deviceId,
    );
  const telemetry: Record<string, unknown> = { ...mapped.telemetry, seq: up.fCnt };
  if (up.time !== undefined) telemetry.ts = up.time;
  return { ok: true, device, telemetry };
};
