/**
 * Simulated devices over Modbus RTU: each device is a unit of a `ModbusSlave` whose register image
 * follows its telemetry, encoded through the device's profile (the inverse of the gateway's mapping).
 * The gateway polls the image; nothing is sent. `simProfile` gives a device the registers of the
 * readings it sends: numbers in pairs of holding registers (thousandths, upper word first), alarms as
 * coils, a rain gauge's tips as a 16-bit input register that wraps.
 */

import { unmapValue } from '../../../gateway/src/decode/profiles/map.ts';
import type { ModbusProfile } from '../../../gateway/src/decode/profiles/schema.ts';
import { ALARM_NAMES, type DeviceKind } from '../../../shared/src/telemetry.ts';
import type { DeviceOutput, SimDevice } from '../devices/base.ts';
import type { ModbusSlave, UnitImage } from './modbusSlave.ts';
import type { SimDeviceLogin, Transport, TransportStats } from './types.ts';

type Field = ModbusProfile['fields'][number];

/** The order of the numeric readings in the holding registers (two each). */
const NUMBERS = ['levelIn', 'sludgeIn', 'scumIn', 'sedimentIn', 'turbidityNtu', 'batteryV'] as const;

/** A profile for a simulated device of `kind` that sends `readings` (telemetry keys; `alarms.<name>`). */
export function simProfile(kind: DeviceKind, readings: ReadonlySet<string>): ModbusProfile {
  const fields: Field[] = [];
  const base = { scale: 1, offset: 0, invert: false };
  const reg = { format: 'uint16' as const, wordOrder: 'high-first' as const };
  if (readings.has('rainTips') || readings.has('rainIn'))
    fields.push({
      ...base,
      reading: 'rainTips',
      from: { table: 'input', address: 0, ...reg },
      derive: 'counter-16',
    });
  NUMBERS.forEach((name, i) => {
    if (readings.has(name))
      fields.push({
        ...base,
        reading: name,
        from: { table: 'holding', address: i * 2, format: 'uint32', wordOrder: 'high-first' },
        scale: 0.001,
      });
  });
  ALARM_NAMES.forEach((name, i) => {
    if (readings.has(`alarms.${name}`))
      fields.push({ ...base, reading: `alarms.${name}`, from: { table: 'coil', address: i, ...reg } });
  });
  return {
    name: `sim-${kind}`,
    label: `Simulated ${kind} on Modbus RTU`,
    source: 'The device simulator’s own register map (firmware-sim/src/transports/modbus.ts).',
    kinds: [kind],
    transport: 'modbus',
    fields,
  };
}

/** The telemetry keys of a payload, alarms as `alarms.<name>`. */
export function readingKeys(payload: Record<string, unknown>): string[] {
  const keys: string[] = [];
  for (const [k, v] of Object.entries(payload)) {
    if (k === 'ts' || k === 'seq' || k === 'rssi') continue;
    if (k === 'alarms' && v && typeof v === 'object') keys.push(...Object.keys(v).map((a) => `alarms.${a}`));
    else keys.push(k);
  }
  return keys;
}

/** Writes one value into the image as the field reads it (the inverse of the gateway's mapping). */
export function encodeField(
  image: UnitImage,
  f: Field,
  value: number | boolean,
  mountHeightIn?: number,
): void {
  const { from } = f;
  if (from.table === 'coil' || from.table === 'discrete') {
    const on = f.invert ? !value : Boolean(value);
    (from.table === 'coil' ? image.coils : image.discrete).set(from.address, on);
    return;
  }
  const table = from.table === 'holding' ? image.holding : image.input;
  if (from.bit !== undefined) {
    const on = f.invert ? !value : Boolean(value);
    const w = table.get(from.address) ?? 0;
    table.set(from.address, on ? w | (1 << from.bit) : w & ~(1 << from.bit));
    return;
  }
  const raw = unmapValue(f, Number(value), mountHeightIn);
  const bytes = new DataView(new ArrayBuffer(4));
  switch (from.format) {
    case 'uint16':
    case 'int16':
      table.set(from.address, Math.round(raw) & 0xffff);
      return;
    case 'uint32':
      bytes.setUint32(0, Math.round(raw));
      break;
    case 'int32':
      bytes.setInt32(0, Math.round(raw));
      break;
    case 'float32':
      bytes.setFloat32(0, raw);
      break;
  }
  const hi = bytes.getUint16(0);
  const lo = bytes.getUint16(2);
  const [first, second] = from.wordOrder === 'low-first' ? [lo, hi] : [hi, lo];
  table.set(from.address, first);
  table.set(from.address + 1, second);
}

export interface ModbusUnit {
  siteId: string;
  deviceId: string;
  unitId: number;
  profile: ModbusProfile;
  /** A rain gauge's calibration: an interval report (`rainIn`) becomes tips on the counter. */
  inchesPerTip?: number;
  mountHeightIn?: number;
}

/** Hands each device's readings to its unit's register image. */
export class ModbusTransport implements Transport {
  readonly name = 'modbus';
  readonly stats: TransportStats = { sent: 0, acked: 0, errors: 0 };
  private readonly byDevice = new Map<string, ModbusUnit>();
  /** Each rain gauge's running tip count (a device's own counter restarts on a reboot; this does not). */
  private readonly tips = new Map<string, { total: number; last?: number }>();

  constructor(
    private readonly slave: ModbusSlave,
    units: readonly ModbusUnit[],
  ) {
    // Until a device has read anything, its unit answers "busy" (exception 6), not silence.
    for (const u of units) {
      this.byDevice.set(`${u.siteId}/${u.deviceId}`, u);
      slave.faults.set(u.unitId, { exception: { code: 6, times: Number.POSITIVE_INFINITY } });
    }
  }

  async open(_devices: readonly SimDeviceLogin[]): Promise<void> {}

  send(device: SimDevice, output: DeviceOutput): void {
    if (output.type !== 'telemetry') return;
    const key = `${device.siteId}/${device.deviceId}`;
    const unit = this.byDevice.get(key);
    this.stats.sent++;
    if (!unit) {
      this.stats.errors++;
      return;
    }
    const image = this.slave.unit(unit.unitId);
    this.slave.faults.delete(unit.unitId);
    const p = output.payload as Record<string, unknown>;
    const values: Record<string, number | boolean> = {};
    for (const [k, v] of Object.entries(p)) if (typeof v === 'number') values[k] = v;
    for (const [k, v] of Object.entries((p.alarms as Record<string, boolean> | undefined) ?? {}))
      values[`alarms.${k}`] = v;
    if (values.rainTips !== undefined || values.rainIn !== undefined)
      values.rainTips = this.countTips(key, unit, values);
    for (const f of unit.profile.fields) {
      const v = values[f.reading];
      if (v !== undefined) encodeField(image, f, v, unit.mountHeightIn);
    }
    this.stats.acked++;
  }

  private countTips(key: string, unit: ModbusUnit, v: Record<string, number | boolean>): number {
    const t = this.tips.get(key) ?? { total: 0 };
    this.tips.set(key, t);
    if (typeof v.rainTips === 'number') {
      t.total += t.last === undefined || v.rainTips < t.last ? v.rainTips : v.rainTips - t.last;
      t.last = v.rainTips;
    } else if (typeof v.rainIn === 'number') t.total += Math.round(v.rainIn / (unit.inchesPerTip ?? 0.01));
    return t.total;
  }

  async close(): Promise<void> {}
}
