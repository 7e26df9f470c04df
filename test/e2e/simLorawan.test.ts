/**
 * The simulator's LoRaWAN transports: `npm run sim -- --scenario storm-0.62in --transport chirpstack
 * --check` (and `things-stack`) against a gateway configured by `--write-gateway-config` with the same
 * transport, the network server's broker a real Mosquitto.
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

describe.skipIf(!run)('simulator storm over LoRaWAN network servers (--check)', () => {
  let broker: Mosquitto;
  const dir = mkdtempSync(join(tmpdir(), 'sim-lorawan-'));
  beforeAll(async () => {
    broker = await start();
  });
  afterAll(async () => {
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const transport of ['chirpstack', 'things-stack'])
    it(`storm-0.62in through ${transport}`, async () => {
      const file = join(dir, `${transport}.yaml`);
      const written = await sim([
        '--scenario',
        'storm-0.62in',
        '--transport',
        transport,
        '--network-server',
        broker.url,
        '--write-gateway-config',
        file,
      ]);
      expect(written.code, written.out).toBe(0);
      const config = loadConfig(file, {});
      const gw = await startGateway(
        {
          ...config,
          dataDir: mkdtempSync(join(dir, `${transport}-data-`)),
          auth: { ...config.auth, tokens: [...config.auth.tokens, testViewerToken] },
          http: { ...config.http, port: await freePort(), host: '127.0.0.1' },
          mqtt: { ...config.mqtt, port: await freePort(), host: '127.0.0.1' },
        },
        { log: silentLog },
      );
      try {
        const res = await sim([
          '--scenario',
          'storm-0.62in',
          '--transport',
          transport,
          '--network-server',
          broker.url,
          '--speed',
          '86400',
          '--check',
          '--api',
          gw.httpUrl,
          '--token',
          TEST_VIEWER_TOKEN,
          '--check-timeout',
          '20s',
        ]);
        expect(res.code, res.out).toBe(0);
        expect(res.out).toMatch(/storm-inspection/);
      } finally {
        await gw.stop();
      }
    }, 90_000);
});
