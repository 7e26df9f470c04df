import type { DeviceKind, TelemetryPayload } from '../../../shared/src/telemetry.ts';
import { Rng } from '../util/prng.ts';

/** What a device does at a virtual instant: sends a reading, or loses / regains its link. */
export type DeviceOutput =
  | { type: 'telemetry'; at: number; payload: TelemetryPayload }
  | { type: 'link'; at: number; up: boolean; reason: 'offline' | 'reboot' };

export type Readings = Omit<TelemetryPayload, 'ts' | 'seq' | 'batteryV' | 'rssi'>;

export interface BatteryOptions {
  startV: number;
  /** Volts lost per day with no charging. */
  dischargeVPerDay: number;
  /** With a solar panel the battery recharges by day: a daily swing of this many volts and a tenth of the discharge. */
  solarSwingV?: number;
  minV: number;
  maxV: number;
}

export interface CommonOptions {
  siteId: string;
  deviceId: string;
  kind: DeviceKind;
  /** Scenario start, epoch ms (virtual). */
  start: number;
  seed: number;
  heartbeatMs: number;
  battery?: BatteryOptions;
  rssi?: { meanDbm: number; sdDb: number };
  /** Link outages: readings taken meanwhile are buffered and sent, with their original timestamps, on reconnect. */
  offline?: { at: number; until: number }[];
  /** Reboots: the device drops off for `rebootMs`; readings in that time are lost and counters restart. */
  reboots?: number[];
  rebootMs?: number;
  /** Readings kept while offline; the oldest are dropped past this. */
  bufferLimit?: number;
  tsFormat?: 'iso' | 'epoch';
  resetSeqOnReboot?: boolean;
}

type Fault = { at: number; type: 'offline-start' | 'offline-end' | 'reboot-start' | 'reboot-end' };

const DEFAULT_BATTERY: BatteryOptions = { startV: 3.62, dischargeVPerDay: 0.002, minV: 3.0, maxV: 3.7 };

/**
 * The firmware shared by every simulated device: sequence numbers, heartbeats, battery and RSSI,
 * link outages with an in-memory backlog, and reboots. A subclass supplies the sensor model.
 * Advance it with `fire(nextAt())` repeatedly; the outputs are in virtual-time order.
 */
export abstract class SimDevice {
  readonly siteId: string;
  readonly deviceId: string;
  readonly kind: DeviceKind;
  protected readonly rng: Rng;
  protected readonly start: number;
  private seq = 0;
  private nextHeartbeat: number;
  private heartbeatMs: number;
  private linkUp = true;
  private booting = false;
  private backlog: TelemetryPayload[] = [];
  private readonly faults: Fault[];
  private readonly noiseRng: Rng;
  /** Readings lost to reboots or to a full buffer. */
  lost = 0;

  constructor(protected readonly common: CommonOptions) {
    this.siteId = common.siteId;
    this.deviceId = common.deviceId;
    this.kind = common.kind;
    this.start = common.start;
    this.rng = Rng.derive(common.seed, `${common.siteId}/${common.deviceId}/model`);
    this.noiseRng = Rng.derive(common.seed, `${common.siteId}/${common.deviceId}/radio`);
    this.heartbeatMs = common.heartbeatMs;
    this.nextHeartbeat = common.start + this.noiseRng.int(0, 59) * 1000;
    const rebootMs = common.rebootMs ?? 20_000;
    this.faults = [
      ...(common.offline ?? []).flatMap((w): Fault[] => [
        { at: w.at, type: 'offline-start' },
        { at: w.until, type: 'offline-end' },
      ]),
      ...(common.reboots ?? []).flatMap((at): Fault[] => [
        { at, type: 'reboot-start' },
        { at: at + rebootMs, type: 'reboot-end' },
      ]),
    ].sort((a, b) => a.at - b.at);
  }

  /** The sensor model's next internal event (Infinity when none). */
  protected abstract modelNextAt(): number;
  /** Advances the sensor model to `t`; returns true when the firmware reports at once (a tip, an alarm edge). */
  protected abstract modelStep(t: number): boolean;
  /** The readings a report carries at `t`. */
  protected abstract readings(t: number): Readings;
  /** Called after a report was taken (sent or buffered). */
  protected afterReport(): void {}
  /** Called when the device comes back from a reboot: RAM counters restart. */
  protected onReboot(): void {}

  get online(): boolean {
    return this.linkUp && !this.booting;
  }

  get buffered(): number {
    return this.backlog.length;
  }

  /** Changes the heartbeat interval (from the next heartbeat on). */
  setHeartbeat(ms: number, now: number): void {
    this.heartbeatMs = ms;
    this.nextHeartbeat = Math.min(this.nextHeartbeat, now + ms);
  }

  nextAt(): number {
    return Math.min(this.modelNextAt(), this.nextHeartbeat, this.faults[0]?.at ?? Number.POSITIVE_INFINITY);
  }

  fire(t: number): DeviceOutput[] {
    const out: DeviceOutput[] = [];
    let report = false;
    while (this.faults.length && this.faults[0]!.at <= t) {
      const f = this.faults.shift()!;
      if (f.type === 'offline-start') {
        if (this.linkUp && !this.booting) out.push({ type: 'link', at: t, up: false, reason: 'offline' });
        this.linkUp = false;
      } else if (f.type === 'offline-end') {
        this.linkUp = true;
        if (!this.booting) {
          out.push({ type: 'link', at: t, up: true, reason: 'offline' });
          this.flush(t, out);
        }
      } else if (f.type === 'reboot-start') {
        if (this.linkUp && !this.booting) out.push({ type: 'link', at: t, up: false, reason: 'reboot' });
        this.booting = true;
        this.lost += this.backlog.length;
        this.backlog = [];
      } else {
        this.booting = false;
        this.onReboot();
        if (this.common.resetSeqOnReboot) this.seq = 0;
        if (this.linkUp) out.push({ type: 'link', at: t, up: true, reason: 'reboot' });
        report = true;
      }
    }
    if (this.modelNextAt() <= t && this.modelStep(t)) report = true;
    if (this.nextHeartbeat <= t) {
      report = true;
      while (this.nextHeartbeat <= t) this.nextHeartbeat += this.heartbeatMs;
    }
    if (report) this.report(t, out);
    return out;
  }

  /** Runs the device alone from its start to `until` (inclusive) and returns everything it did. */
  runUntil(until: number): DeviceOutput[] {
    const out: DeviceOutput[] = [];
    for (let t = this.nextAt(); t <= until; t = this.nextAt()) out.push(...this.fire(t));
    return out;
  }

  private report(t: number, out: DeviceOutput[]): void {
    const readings = this.readings(t);
    if (this.booting) {
      this.lost++;
      this.afterReport();
      return;
    }
    const payload: TelemetryPayload = {
      ts: this.common.tsFormat === 'epoch' ? t : new Date(t).toISOString(),
      seq: this.seq++,
      ...readings,
      batteryV: this.battery(t),
      rssi: this.rssi(),
    };
    this.afterReport();
    if (this.linkUp) {
      out.push({ type: 'telemetry', at: t, payload });
      return;
    }
    this.backlog.push(payload);
    const limit = this.common.bufferLimit ?? 5000;
    while (this.backlog.length > limit) {
      this.backlog.shift();
      this.lost++;
    }
  }

  private flush(t: number, out: DeviceOutput[]): void {
    for (const payload of this.backlog) out.push({ type: 'telemetry', at: t, payload });
    this.backlog = [];
  }

  private battery(t: number): number {
    const b = this.common.battery ?? DEFAULT_BATTERY;
    const days = (t - this.start) / 86_400_000;
    let v = b.startV - b.dischargeVPerDay * days * (b.solarSwingV ? 0.1 : 1);
    if (b.solarSwingV) {
      const hour = (t / 3_600_000) % 24;
      v += b.solarSwingV * Math.max(0, Math.sin(((hour - 6) / 12) * Math.PI));
    }
    v += this.noiseRng.normal(0, 0.005);
    return round(Math.min(b.maxV, Math.max(b.minV, v)), 2);
  }

  private rssi(): number {
    const r = this.common.rssi ?? { meanDbm: -78, sdDb: 3 };
    return Math.round(Math.min(-30, Math.max(-120, this.noiseRng.normal(r.meanDbm, r.sdDb))));
  }
}

export function round(v: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round(v * f) / f;
}

/** A household's water use over the day: low at night, peaks in the morning and evening; mean 1. */
export function diurnalFactor(t: number): number {
  const h = (t / 3_600_000) % 24;
  const morning = Math.exp(-((h - 7.5) ** 2) / 2);
  const evening = Math.exp(-((h - 19) ** 2) / 3);
  return (0.25 + 1.9 * morning + 1.55 * evening) / 0.6467;
}
