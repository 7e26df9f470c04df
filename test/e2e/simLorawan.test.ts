/**
 * The simulator's LoRaWAN transports: `npm run sim -- --scenario <name> --transport chirpstack --check`
 * (and `things-stack`) against a gateway configured by `--write-gateway-config` with the same transport,
 * the network server's broker a real Mosquitto. Each network server carries the storm and one more
 * scenario (the sediment trap's ultrasonic sensor, the septic panel's float contact): one gateway each.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../gateway/src/config/load.ts';
import { startGateway } from '../../gateway/src/main.ts';
import { silentLog } from '../../gateway/src/pipeline.ts';
import { freePort } from '../helpers/env.ts';
import { haveMosquitto, type Mosquitto, start } from '../helpers/mosquitto.ts';
import { TEST_VIEWER_TOKEN, testViewerToken } from '../helpers/viewerFetch.ts';

const exec = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');
const run = haveMosquitto();
const sim = (args: string[]) =>
  exec(process.execPath, ['--import', 'tsx', join(ROOT, 'firmware-sim/src/cli.ts'), ...args], {
    cwd: ROOT,
    maxBuffer: 1 << 24,
  }).then(
    (r) => ({ code: 0, out: r.stdout + r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
  );

/** The scenarios each network server carries, with a duty each must raise. */
const RUNS = {
  chirpstack: [
    ['storm-0.62in', /storm-inspection/],
    ['sediment-fill', /sediment-cleanout/],
  ],
  'things-stack': [
    ['storm-0.62in', /storm-inspection/],
    ['float-alarm', /equipment-remedy/],
  ],
} as const;

describe.skipIf(!run)('simulator scenarios over LoRaWAN network servers (--check)', () => {
  let broker: Mosquitto;
  const dir = mkdtempSync(join(tmpdir(), 'sim-lorawan-'));
  beforeAll(async () => {
    broker = await start();
  });
  afterAll(async () => {
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const [transport, scenarios] of Object.entries(RUNS))
    describe(`through ${transport}`, () => {
      let gw: Awaited<ReturnType<typeof startGateway>> | undefined;
      beforeAll(async () => {
        // The gateway config the simulator writes for each scenario, their sites together in one gateway.
        const configs = [];
        for (const [scenario] of scenarios) {
          const file = join(dir, `${transport}-${scenario}.yaml`);
          const written = await sim([
            '--scenario',
            scenario,
            '--transport',
            transport,
            '--network-server',
            broker.url,
            '--write-gateway-config',
            file,
          ]);
          expect(written.code, written.out).toBe(0);
          configs.push(loadConfig(file, {}));
        }
        const config = configs[0]!;
        gw = await startGateway(
          {
            ...config,
            sites: configs.flatMap((c) => c.sites),
            dataDir: mkdtempSync(join(dir, `${transport}-data-`)),
            auth: { ...config.auth, tokens: [...config.auth.tokens, testViewerToken] },
            http: { ...config.http, port: await freePort(), host: '127.0.0.1' },
            mqtt: { ...config.mqtt, port: await freePort(), host: '127.0.0.1' },
          },
          { log: silentLog },
        );
      }, 60_000);
      afterAll(async () => {
        await gw?.stop();
      });

      for (const [scenario, duty] of scenarios)
        it(`${scenario}: every device heard through ${transport}, the scenario's duties raised`, async () => {
          const res = await sim([
            '--scenario',
            scenario,
            '--transport',
            transport,
            '--network-server',
            broker.url,
            '--speed',
            '86400',
            '--check',
            '--api',
            gw!.httpUrl,
            '--token',
            TEST_VIEWER_TOKEN,
            '--check-timeout',
            '20s',
          ]);
          expect(res.code, res.out).toBe(0);
          expect(res.out).toMatch(duty);
          expect(res.out).toMatch(/\(\d+ acknowledged, 0 errors\)/);
        }, 90_000);
    });
});
