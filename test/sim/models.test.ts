import { describe, expect, it } from 'vitest';
import { SimClock } from '../../firmware-sim/src/clock.ts';
import type { DeviceOutput } from '../../firmware-sim/src/devices/base.ts';
import { RainGauge } from '../../firmware-sim/src/devices/rainGauge.ts';
import { SedimentTrap } from '../../firmware-sim/src/devices/sedimentTrap.ts';
import { SepticPanel } from '../../firmware-sim/src/devices/septicPanel.ts';
import { Turbidity } from '../../firmware-sim/src/devices/turbidity.ts';
import { typeIIIStorm, uniformRain } from '../../firmware-sim/src/rain/curve.ts';
import { listScenarios, loadScenario } from '../../firmware-sim/src/scenario/load.ts';
import { runScenario } from '../../firmware-sim/src/sim.ts';
import { serialLine } from '../../firmware-sim/src/transports/serial.ts';
import { Rng } from '../../firmware-sim/src/util/prng.ts';
import { crc16ccitt } from '../../shared/src/crc16.ts';
import {
  serialPayloadSchema,
  type TelemetryPayload,
  telemetryPayloadSchema,
} from '../../shared/src/telemetry.ts';
import { T0 } from './helpers.ts';

const HOUR = 3_600_000;
const telemetry = (outs: DeviceOutput[]) =>
  outs.filter((o): o is Extract<DeviceOutput, { type: 'telemetry' }> => o.type === 'telemetry');
const tsMs = (p: TelemetryPayload) => (typeof p.ts === 'number' ? p.ts : Date.parse(p.ts!));

function gauge(extra: Partial<ConstructorParameters<typeof RainGauge>[0]> = {}) {
  return new RainGauge({
    siteId: 's',
    deviceId: 'rg-1',
    start: T0,
    seed: 1,
    heartbeatMs: 15 * 60_000,
    inchesPerTip: 0.01,
    mode: 'counter',
    rain: typeIIIStorm(T0 + HOUR, 0.62),
    ...extra,
  });
}

describe('seeded PRNG and clock', () => {
  it('repeats for a seed and differs between seeds', () => {
    const a = new Rng(42);
    const b = new Rng(42);
    const xs = Array.from({ length: 5 }, () => a.next());
    expect(Array.from({ length: 5 }, () => b.next())).toEqual(xs);
    expect(new Rng(43).next()).not.toBe(xs[0]);
    expect(Rng.derive(1, 'x').next()).not.toBe(Rng.derive(1, 'y').next());
  });

  it('step mode jumps; speed mode advances virtual time `speed` times faster', async () => {
    const step = new SimClock(T0, 'step');
    await step.sleepUntil(T0 + 86_400_000);
    expect(step.now()).toBe(T0 + 86_400_000);
    let real = 1000;
    const fast = new SimClock(T0, 8640, () => real);
    real += 10_000;
    expect(fast.now()).toBe(T0 + 86_400_000);
    expect(fast.realDelayUntil(T0 + 2 * 86_400_000)).toBe(10_000);
    fast.setSpeed(1);
    real += 1000;
    expect(fast.now()).toBe(T0 + 86_400_000 + 1000);
  });
});

describe('device models', () => {
  it('are deterministic: the same seed gives the same payload sequence, another seed differs', async () => {
    const run = async (seed: number) =>
      (
        await runScenario(loadScenario('sediment-fill'), { start: T0, seed, speed: 'step', dryRun: true })
      ).memory!.records.map((r) => JSON.stringify(r));
    const a = await run(7);
    expect(a.length).toBeGreaterThan(100);
    expect(await run(7)).toEqual(a);
    expect(await run(8)).not.toEqual(a);
  });

  it('every payload every scenario emits passes the telemetry schema, and its serial line the serial schema', async () => {
    let checked = 0;
    for (const name of listScenarios()) {
      const loaded = loadScenario(name);
      if (loaded.scenario.fleet) continue;
      const { memory } = await runScenario(loaded, { start: T0, speed: 'step', dryRun: true });
      for (const r of memory!.records) {
        if (r.output.type !== 'telemetry') continue;
        const res = telemetryPayloadSchema.safeParse(r.output.payload);
        if (!res.success)
          throw new Error(`${name} ${JSON.stringify(r.output.payload)}: ${res.error.message}`);
        const line = serialLine(r.siteId, r.deviceId, r.output.payload).trimEnd();
        const star = line.lastIndexOf('*');
        expect(crc16ccitt(line.slice(0, star))).toBe(Number.parseInt(line.slice(star + 1), 16));
        expect(serialPayloadSchema.safeParse(JSON.parse(line.slice(0, star))).success).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(1000);
  });

  it('rain gauge reports each tip and heartbeats; counter mode counts 62 tips for 0.62 in', () => {
    const outs = telemetry(gauge().runUntil(T0 + 30 * HOUR));
    const last = outs[outs.length - 1]!.payload;
    expect(last.rainTips).toBe(62);
    const seqs = outs.map((o) => o.payload.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i));
    const dry = outs.filter((o) => tsMs(o.payload) > T0 + 26 * HOUR);
    expect(dry.length).toBeGreaterThanOrEqual(15);
    expect(new Set(dry.map((o) => o.payload.rainTips))).toEqual(new Set([62]));
  });

  it('interval mode sends rainIn since the last report; the sum is the storm depth', () => {
    const outs = telemetry(gauge({ mode: 'interval' }).runUntil(T0 + 30 * HOUR));
    const sum = outs.reduce((s, o) => s + (o.payload.rainIn ?? 0), 0);
    expect(sum).toBeCloseTo(0.62, 6);
    expect(outs.every((o) => o.payload.rainTips === undefined)).toBe(true);
  });

  it('a reboot restarts the tip counter at 0 and drops off the link meanwhile', () => {
    const g = gauge({ reboots: [T0 + 13 * HOUR] });
    const outs = g.runUntil(T0 + 30 * HOUR);
    const links = outs.filter((o) => o.type === 'link');
    expect(links.map((l) => (l as { up: boolean }).up)).toEqual([false, true]);
    const tel = telemetry(outs);
    const boot = tel.find((o) => o.at >= T0 + 13 * HOUR)!;
    expect(boot.payload.rainTips).toBe(0);
    const before = tel.filter((o) => o.at < T0 + 13 * HOUR).at(-1)!.payload.rainTips!;
    expect(before).toBeGreaterThan(0);
    const final = tel.at(-1)!.payload.rainTips!;
    expect(final).toBeLessThan(62);
    expect(before + final).toBeLessThanOrEqual(62);
    expect(before + final).toBeGreaterThanOrEqual(60);
  });

  it('offline: buffers readings, then sends the backlog in order with original timestamps on reconnect', () => {
    const g = gauge({ offline: [{ at: T0 + 12 * HOUR, until: T0 + 16 * HOUR }] });
    const outs = g.runUntil(T0 + 30 * HOUR);
    const down = outs.findIndex((o) => o.type === 'link' && !o.up);
    const up = outs.findIndex((o) => o.type === 'link' && o.up);
    expect(outs[down]!.at).toBe(T0 + 12 * HOUR);
    expect(outs[up]!.at).toBe(T0 + 16 * HOUR);
    expect(outs.slice(down + 1, up)).toEqual([]);
    const backlog = telemetry(outs.slice(up + 1)).filter((o) => o.at === T0 + 16 * HOUR);
    expect(backlog.length).toBeGreaterThan(16);
    const ts = backlog.map((o) => tsMs(o.payload));
    expect(ts[0]).toBeGreaterThanOrEqual(T0 + 12 * HOUR);
    expect(ts.filter((t) => t < T0 + 16 * HOUR).length).toBeGreaterThanOrEqual(backlog.length - 1);
    expect([...ts].sort((a, b) => a - b)).toEqual(ts);
    const seqs = telemetry(outs).map((o) => o.payload.seq!);
    expect(seqs).toEqual(seqs.map((_, i) => i));
    expect(telemetry(outs).at(-1)!.payload.rainTips).toBe(62);
  });

  it('switch bounce adds a second closure less than a second after a real tip', () => {
    const g = gauge({ bounceProbability: 0.5 });
    expect(g.realTips).toHaveLength(62);
    expect(g.closures.length).toBeGreaterThan(62);
    const bounces = g.closures.filter(
      (t, i) => i > 0 && t - g.closures[i - 1]! < 1000 && t - g.closures[i - 1]! >= 50,
    );
    expect(bounces.length).toBe(g.closures.length - 62);
  });

  it('septic panel: a bouncing float never holds 60 s; a held alarm is reported on the edge and repeated', () => {
    const p = new SepticPanel({
      siteId: 's',
      deviceId: 'panel-1',
      kind: 'septic-panel',
      start: T0,
      seed: 3,
      heartbeatMs: 15 * 60_000,
      liquidDepthIn: 60,
      dosing: { pumpOnIn: 30, pumpOffIn: 18, highWaterIn: 40, usageInPerDay: 20, pumpInPerMin: 2 },
      events: [
        { at: T0 + HOUR, type: 'alarm', alarm: 'highWater', action: 'bounce', seconds: 20 },
        { at: T0 + 2 * HOUR, type: 'pump-fault' },
      ],
    });
    const tel = telemetry(p.runUntil(T0 + 40 * HOUR));
    const bounce = tel.filter((o) => o.at >= T0 + HOUR && o.at <= T0 + HOUR + 30_000);
    expect(bounce.length).toBeGreaterThanOrEqual(3);
    expect(bounce.at(-1)!.payload.alarms!.highWater).toBe(false);
    const pump = tel.find((o) => o.payload.alarms?.pump)!;
    expect(pump.at).toBe(T0 + 2 * HOUR);
    // With the pump dead, household use fills the tank past the high-water float.
    const hw = tel.filter((o) => o.at > T0 + 2 * HOUR && o.payload.alarms?.highWater);
    expect(hw.length).toBeGreaterThan(0);
    expect(hw.at(-1)!.payload.levelIn!).toBeGreaterThanOrEqual(40);
    const levels = tel.filter((o) => o.at < T0 + 2 * HOUR).map((o) => o.payload.levelIn!);
    expect(Math.max(...levels)).toBeLessThan(31);
  });

  it('sediment trap accrues with runoff and a cleanout drops the depth; the outlet turbidity spikes with rain', () => {
    const rain = uniformRain(T0 + HOUR, 1, 2 * HOUR);
    const common = { siteId: 's', start: T0, seed: 1, heartbeatMs: 15 * 60_000, rain };
    const trap = new SedimentTrap({
      ...common,
      deviceId: 'trap-1',
      designDepthIn: 24,
      initialIn: 4,
      sedimentPerRainIn: 5,
      cleanouts: [{ at: T0 + 10 * HOUR, toIn: 1 }],
    });
    const tel = telemetry(trap.runUntil(T0 + 12 * HOUR));
    const at = (h: number) => tel.filter((o) => o.at <= T0 + h * HOUR).at(-1)!.payload.sedimentIn!;
    expect(at(0.9)).toBeCloseTo(4, 0);
    expect(at(9.9)).toBeCloseTo(9, 0);
    expect(at(10.01)).toBeCloseTo(1, 0);
    const out = new Turbidity({
      ...common,
      deviceId: 't-out',
      role: 'outlet',
      baseNtu: 8,
      ntuPerInPerHour: 300,
    });
    const ntu = telemetry(out.runUntil(T0 + 12 * HOUR)).map((o) => o.payload.turbidityNtu!);
    expect(Math.max(...ntu)).toBeGreaterThan(100);
    expect(ntu.at(-1)!).toBeLessThan(20);
  });
});
