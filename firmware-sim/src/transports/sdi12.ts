/**
 * Scenario devices as SDI-12 sensors behind one simulated adapter (sdi12Sensors.ts). A device's reading
 * sets what its sensor gives at the next measurement: each field of the device's profile read backwards
 * (the level a distance sensor would see, the scale and offset undone). Rain is what a gauge's SDI-12
 * interface counts: the rain since the last measurement, given once and reset by the measurement command
 * (from `rainIn`, or from the rise of `rainTips` times the gauge's inches a tip).
 */
import { unmapValue } from '../../../gateway/src/decode/profiles/map.ts';
import type { Sdi12Profile } from '../../../gateway/src/decode/profiles/schema.ts';
import type { DeviceOutput, SimDevice } from '../devices/base.ts';
import type { SimSdi12Sensors } from './sdi12Sensors.ts';
import type { SimDeviceLogin, Transport, TransportStats } from './types.ts';

/** A scenario device as an SDI-12 sensor. */
export interface Sdi12SimDevice {
  address: string;
  profile: Sdi12Profile;
  mountHeightIn?: number;
  inchesPerTip?: number;
}

interface SensorState {
  spec: Sdi12SimDevice;
  /** Raw values by 1-based index. */
  values: Map<number, number>;
  /** Rain since the last measurement, raw, by index. */
  rain: Map<number, number>;
  lastTips?: number;
}

/** The raw value a sensor gives for a reading, through the profile's field backwards. */
export function rawFor(field: Sdi12Profile['fields'][number], value: number, mountHeightIn?: number): number {
  return Math.round(unmapValue(field, value, mountHeightIn) * 1e6) / 1e6;
}

export class Sdi12Transport implements Transport {
  readonly name = 'sdi12';
  readonly stats: TransportStats = { sent: 0, acked: 0, errors: 0 };
  private readonly states = new Map<SimDevice, SensorState>();

  constructor(
    private readonly bus: SimSdi12Sensors,
    private readonly specOf: (siteId: string, deviceId: string) => Sdi12SimDevice | undefined,
  ) {}

  async open(devices: readonly SimDeviceLogin[]): Promise<void> {
    for (const { device } of devices) {
      const spec = this.specOf(device.siteId, device.deviceId);
      if (!spec) throw new Error(`${device.siteId}/${device.deviceId} has no SDI-12 address and profile`);
      const state: SensorState = { spec, values: new Map(), rain: new Map() };
      this.states.set(device, state);
      this.bus.add({ address: spec.address, read: () => this.measure(state) });
    }
  }

  /** What the sensor gives at a measurement command; the rain counted since the last one is reset. */
  private measure(s: SensorState): number[] {
    const n = Math.max(...s.spec.profile.fields.map((f) => f.from.index));
    const out: number[] = [];
    for (let i = 1; i <= n; i++) out.push(s.rain.get(i) ?? s.values.get(i) ?? 0);
    for (const i of s.rain.keys()) s.rain.set(i, 0);
    return out;
  }

  send(device: SimDevice, output: DeviceOutput): void {
    if (output.type !== 'telemetry') return;
    const s = this.states.get(device);
    if (!s) {
      this.stats.errors++;
      return;
    }
    this.stats.sent++;
    const p = output.payload as Record<string, unknown>;
    let rainIn = typeof p.rainIn === 'number' ? p.rainIn : undefined;
    if (typeof p.rainTips === 'number') {
      const rise = s.lastTips === undefined || p.rainTips < s.lastTips ? p.rainTips : p.rainTips - s.lastTips;
      s.lastTips = p.rainTips;
      rainIn = (rainIn ?? 0) + rise * (s.spec.inchesPerTip ?? 0.01);
    }
    for (const f of s.spec.profile.fields) {
      const i = f.from.index;
      if (f.reading === 'rainIn') {
        if (rainIn !== undefined) s.rain.set(i, (s.rain.get(i) ?? 0) + rainIn / f.scale);
        continue;
      }
      if (f.reading.startsWith('alarms.')) {
        const alarms = p.alarms as Record<string, boolean> | undefined;
        const on = alarms?.[f.reading.slice('alarms.'.length)];
        if (on !== undefined) s.values.set(i, (f.invert ? !on : on) ? 1 : 0);
        continue;
      }
      const v = p[f.reading];
      if (typeof v === 'number') s.values.set(i, rawFor(f, v, s.spec.mountHeightIn));
    }
    this.stats.acked++;
  }

  /** The adapter is shared; whoever opened it closes it. */
  async close(): Promise<void> {}
}
