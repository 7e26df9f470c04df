import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type ApiAlert,
  compareAlerts,
  formatComparison,
  resolveExpectations,
} from '../../firmware-sim/src/compare.ts';
import { startModbusScenarios } from '../../firmware-sim/src/modbusRun.ts';
import { loadScenario } from '../../firmware-sim/src/scenario/load.ts';
import { loadConfig } from '../../gateway/src/config/load.ts';
import { startGateway } from '../../gateway/src/main.ts';
import { silentLog } from '../../gateway/src/pipeline.ts';
import { freePort, haveBinary } from '../helpers/env.ts';

const ROOT = join(import.meta.dirname, '../..');
const NAMES = ['storm-0.62in', 'float-alarm', 'sediment-fill'];

/**
 * The demo's scenarios over Modbus RTU, the gateway's clock their virtual clock: polled a minute apart,
 * the gateway raises the alerts each scenario expects, as it does over JSON.
 */
describe.runIf(haveBinary('socat'))('scenarios over Modbus RTU, the gateway on the virtual clock', () => {
  it('gives the alerts the scenarios expect', { timeout: 240_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gw-modbus-scn-'));
    const config = loadConfig(join(ROOT, 'firmware-sim/scenarios/gateway.yaml'), {});
    const scenarios = NAMES.map((n) => loadScenario(n));
    const sim = await startModbusScenarios({
      scenarios,
      config: {
        ...config,
        dataDir,
        http: { ...config.http, port: await freePort(), host: '127.0.0.1' },
        mqtt: { ...config.mqtt, port: await freePort(), host: '127.0.0.1' },
      },
      startGateway: (c, opts) => startGateway(c, { ...opts, log: silentLog }),
    });
    try {
      await sim.replay();
      for (const run of sim.runs) {
        const { scenario, start } = run.built;
        const expected = resolveExpectations(scenario.expect, start);
        const alerts: ApiAlert[] = [];
        for (const site of scenario.sites) {
          const res = await fetch(`${sim.gw.httpUrl}/api/alerts?siteId=${site.id}&limit=500`, {
            headers: { authorization: `Bearer ${sim.token}` },
          });
          alerts.push(...((await res.json()) as ApiAlert[]));
        }
        const c = compareAlerts(expected, alerts);
        expect(c.ok, `${scenario.name}: ${formatComparison(c)}`).toBe(true);
      }
    } finally {
      await sim.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
