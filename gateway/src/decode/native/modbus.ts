/**
 * The Modbus RTU decoder: one poll of a device (the registers, coils and discrete inputs its profile
 * needs, as the poller read them, `ModbusPoll`) mapped through the device's profile into the gateway's
 * telemetry object. The reading's time is the poll's time on the gateway's clock (a Modbus device has
 * no clock of its own to send). 32-bit values come from two registers in either word order; one bit of
 * a register can be an alarm. Pure.
 */
import { z } from 'zod';
import { reject, unregistered } from '../decode.ts';
import {
  type MappingContext,
  type MappingDevice,
  mapFields,
  type RawValue,
  readNumber,
} from '../profiles/map.ts';
import type { ModbusProfile, ModbusSource } from '../profiles/schema.ts';
import type { NativeDecoder } from './types.ts';

const address = z.string().regex(/^\d{1,5}$/, 'a register address in decimal');
const registers = z.record(address, z.number().int().min(0).max(65_535)).default({});
const bits = z.record(address, z.boolean()).default({});

/** What one poll of a device read, by table and zero-based address. */
export const modbusPollSchema = z.strictObject({
  /** The gateway's clock when the poll was answered (epoch ms). */
  polledAt: z.number().int().min(0),
  unitId: z.number().int().min(1).max(247),
  holding: registers,
  input: registers,
  coils: bits,
  discrete: bits,
});
export type ModbusPoll = z.infer<typeof modbusPollSchema>;
export type ModbusPollInput = z.input<typeof modbusPollSchema>;

/** Which registers (one or two) or bit a source needs: its table and addresses. */
export function sourceAddresses(from: ModbusSource): { table: ModbusSource['table']; addresses: number[] } {
  const wide = (from.table === 'holding' || from.table === 'input') && from.format.endsWith('32');
  return { table: from.table, addresses: wide ? [from.address, from.address + 1] : [from.address] };
}

/** One value of a poll, read as the source says. */
export function readSource(poll: ModbusPoll, from: ModbusSource): RawValue {
  if (from.table === 'coil' || from.table === 'discrete') {
    const v = (from.table === 'coil' ? poll.coils : poll.discrete)[String(from.address)];
    return v === undefined ? { error: `${tableWords(from.table)} ${from.address} was not read` } : v;
  }
  const table = from.table === 'holding' ? poll.holding : poll.input;
  const { addresses } = sourceAddresses(from);
  const words: number[] = [];
  for (const a of addresses) {
    const w = table[String(a)];
    if (w === undefined) return { error: `${tableWords(from.table)} ${a} was not read` };
    words.push(w);
  }
  if (from.bit !== undefined) return ((words[0]! >> from.bit) & 1) === 1;
  const ordered = words.length === 2 && from.wordOrder === 'low-first' ? [words[1]!, words[0]!] : words;
  const bytes = new Uint8Array(ordered.length * 2);
  ordered.forEach((w, i) => {
    bytes[i * 2] = w >> 8;
    bytes[i * 2 + 1] = w & 0xff;
  });
  return readNumber(bytes, 0, from.format);
}

const tableWords = (t: ModbusSource['table']): string =>
  ({ holding: 'holding register', input: 'input register', coil: 'coil', discrete: 'discrete input' })[t];

/** `modbus:<siteId>/<deviceId>` → the ids. */
export function parseModbusTopic(topic: string): { siteId: string; deviceId: string } | undefined {
  const m = /^modbus:([^/]+)\/([^/]+)$/.exec(topic);
  return m ? { siteId: m[1]!, deviceId: m[2]! } : undefined;
}

/** Maps a poll through a profile (the decoder's core, also used by tests and the simulator's check). */
export function mapPoll(
  profile: ModbusProfile,
  poll: ModbusPoll,
  device: MappingDevice,
  ctx: MappingContext = {},
) {
  return mapFields(profile, (f) => readSource(poll, f.from), device, ctx);
}

export const decodeModbus: NativeDecoder = (msg, registry, ctx) => {
  const ids = parseModbusTopic(msg.topic);
  if (!ids) return reject('bad_topic', `not a Modbus device's topic: ${msg.topic}`);
  const { siteId, deviceId } = ids;
  const device = registry.lookup(siteId, deviceId);
  if (!device) return unregistered(siteId, deviceId);
  const profile = ctx.profileOf(device);
  if (profile?.transport !== 'modbus')
    return reject('bad_topic', `device ${siteId}/${deviceId} has no Modbus profile`, siteId, deviceId);
  let json: unknown;
  try {
    json = JSON.parse(typeof msg.payload === 'string' ? msg.payload : msg.payload.toString('utf8'));
  } catch (e) {
    return reject('malformed_json', `the poll is not JSON: ${(e as Error).message}`, siteId, deviceId);
  }
  const parsed = modbusPollSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return reject('wrong_type', `the poll: ${issue.path.join('.')} ${issue.message}`, siteId, deviceId);
  }
  const mine = { mountHeightIn: device.device.mountHeightIn, kind: device.kind };
  const mapped = mapPoll(profile, parsed.data, mine, ctx.mapping(device));
  if (!mapped.ok) return reject('wrong_type', mapped.detail, siteId, deviceId);
  return { ok: true, device, telemetry: { ts: parsed.data.polledAt, ...mapped.telemetry } };
};
