import { describe, expect, it } from 'vitest';
import { compareAlerts, resolveExpectations } from '../../firmware-sim/src/compare.ts';
import { expectedFromOutputs, stormEvents, tipsFromReadings } from '../../firmware-sim/src/oracle.ts';
import { demoPassword } from '../../firmware-sim/src/scenario/build.ts';
import {
  listScenarios,
  loadScenario,
  parseScenario,
  SCENARIO_DIR,
} from '../../firmware-sim/src/scenario/load.ts';
import { runScenario } from '../../firmware-sim/src/sim.ts';
import { loadConfig } from '../../gateway/src/config/load.ts';
import { verifyPassword } from '../../shared/src/password.ts';
import { PRODUCT_SCENARIOS, T0 } from './helpers.ts';

const REQUIRED = [...PRODUCT_SCENARIOS, 'fleet'];

async function gaugeEvents(name: string) {
  const loaded = loadScenario(name);
  const { memory } = await runScenario(loaded, { start: T0, speed: 'step', dryRun: true });
  const payloads = memory!.records
    .filter((r) => r.deviceId === 'rg-1' && r.output.type === 'telemetry')
    .map((r) => (r.output as { payload: object }).payload);
  return stormEvents(tipsFromReadings(payloads, 0.01), 0.01);
}

describe('scenario files', () => {
  it('ship every required scenario and all validate', () => {
    const names = listScenarios();
    for (const r of REQUIRED) expect(names).toContain(r);
    for (const n of names) expect(loadScenario(n).scenario.name).toBe(n);
  });

  it('reject a malformed scenario with the path of the problem', () => {
    expect(() =>
      parseScenario(
        'name: x\nduration: 1h\nsites: [{id: a, kind: construction, devices: [{id: g, model: rain-gauge}]}]',
        'x.yaml',
      ),
    ).toThrow(/inchesPerTip/);
    expect(() => parseScenario('name: x\nduration: soon\nfleet: {}', 'x.yaml')).toThrow(/duration/);
  });

  it('gateway.yaml is a valid gateway config with every site and device, kinds and password hashes matching', () => {
    const config = loadConfig(`${SCENARIO_DIR}gateway.yaml`, {});
    expect(config.mqtt.allowAnonymous).toBe(false);
    let devices = 0;
    for (const name of listScenarios()) {
      for (const site of loadScenario(name).scenario.sites) {
        const gs = config.sites.find((s) => s.id === site.id);
        expect(gs, `site ${site.id}`).toBeDefined();
        expect(gs!.kind).toBe(site.kind);
        for (const d of site.devices) {
          const gd = gs!.devices.find((x) => x.id === d.id);
          expect(gd, `${site.id}/${d.id}`).toBeDefined();
          expect(gd!.kind).toBe(d.model);
          if (d.model === 'rain-gauge') expect(gd!.inchesPerTip).toBe(d.inchesPerTip);
          expect(verifyPassword(d.password ?? demoPassword(site.id, d.id), gd!.passwordHash!)).toBe(true);
          devices++;
        }
      }
    }
    expect(devices).toBeGreaterThanOrEqual(12);
  });

  it('each expected alert (count and due time) follows from what the models send', async () => {
    for (const name of listScenarios()) {
      const loaded = loadScenario(name);
      if (loaded.scenario.fleet) continue;
      const { memory } = await runScenario(loaded, { start: T0, speed: 'step', dryRun: true });
      const oracle = expectedFromOutputs(loaded.scenario.sites, memory!.records);
      const c = compareAlerts(resolveExpectations(loaded.scenario.expect, T0), oracle);
      expect(c.problems, name).toEqual([]);
      expect(c.unmentioned, name).toEqual([]);
      expect(c.met.length, name).toBeGreaterThan(0);
    }
  });

  it('storm-0.62in reaches 50 tips within one event; drizzle-0.45in stays below', async () => {
    const storm = await gaugeEvents('storm-0.62in');
    expect(storm).toHaveLength(1);
    expect(storm[0]!.tips).toBe(62);
    expect(storm[0]!.thresholdAt).toBeDefined();
    const drizzle = await gaugeEvents('drizzle-0.45in');
    expect(drizzle).toHaveLength(1);
    expect(drizzle[0]!.tips).toBe(45);
    expect(drizzle[0]!.thresholdAt).toBeUndefined();
  });

  it('two bursts 2 h apart are one 0.6 in event; 8 h apart, two 0.3 in events', async () => {
    const two = await gaugeEvents('two-bursts-2h');
    expect(two.map((e) => e.tips)).toEqual([60]);
    const eight = await gaugeEvents('two-bursts-8h');
    expect(eight.map((e) => e.tips)).toEqual([30, 30]);
    expect(eight[1]!.start - eight[0]!.end).toBe(8 * 3_600_000);
  });

  it('the offline gauge still delivers every tip, so the event and its due time are as if it never dropped', async () => {
    const events = await gaugeEvents('gauge-offline-during-storm');
    expect(events).toHaveLength(1);
    expect(events[0]!.tips).toBe(80);
    expect(events[0]!.end).toBe(T0 + 26 * 3_600_000);
    expect(events[0]!.thresholdAt! - T0).toBeGreaterThan(12 * 3_600_000);
    expect(events[0]!.thresholdAt! - T0).toBeLessThan(16 * 3_600_000);
  });
});
