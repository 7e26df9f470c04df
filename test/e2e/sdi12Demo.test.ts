/**
 * The demo over SDI-12 (`npm run demo -- --transport sdi12`), stepped: the scenarios' devices are SDI-12
 * sensors behind a simulated adapter on a socat pair, the gateway runs on the scenarios' virtual clock
 * and measures every device at each step. sediment-fill and storm-0.62in give the alerts they give over
 * JSON (their `expect`).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { type Sdi12Demo, startSdi12Demo } from '../../firmware-sim/src/demoSdi12.ts';
import { loadScenario } from '../../firmware-sim/src/scenario/load.ts';
import { resolveInstant } from '../../firmware-sim/src/util/time.ts';
import { haveBinary } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const enabled = haveBinary('socat');

type Alert = { rule: string; siteId: string; deviceId?: string; dueAt?: string | null };

describe.runIf(enabled)('the SDI-12 demo, stepped on the virtual clock', () => {
  let demo: Sdi12Demo<TestGateway> | undefined;
  afterAll(async () => {
    await demo?.close();
    await demo?.gateway.cleanup();
  });

  it('sediment-fill and storm-0.62in raise their expected alerts over SDI-12', async () => {
    const scenarios = ['storm-0.62in', 'sediment-fill'].map((n) => loadScenario(n));
    demo = await startSdi12Demo(scenarios, (input, now) =>
      startTestGateway(input, { now, sitesAsGiven: true }),
    );
    const counts: Record<string, number> = {};
    const steps = await demo.replay((_t, outcomes) => {
      for (const o of outcomes) counts[o.outcome] = (counts[o.outcome] ?? 0) + 1;
    });
    expect(steps).toBeGreaterThan(400);
    // Three devices (two gauges and a trap), each measured and stored at every step.
    expect(counts).toEqual({ stored: steps * 3 });
    const alerts = (await (await fetch(`${demo.gateway.httpUrl}/api/alerts`)).json()) as Alert[];
    for (const s of scenarios)
      for (const want of s.scenario.expect.alerts) {
        const got = alerts.filter(
          (a) => a.rule === want.rule && a.siteId === want.siteId && a.deviceId === want.deviceId,
        );
        expect(got, `${want.rule} at ${want.siteId}/${want.deviceId}`).toHaveLength(want.count ?? 1);
        // The storm's deadline as over JSON: 24 h after its last tip, though the rain comes at measurements.
        if (want.dueAt)
          expect(Date.parse(got[0]!.dueAt!)).toBe(
            resolveInstant(want.dueAt, demo.runs.find((r) => r.built.scenario === s.scenario)!.built.start),
          );
      }
  });
});
