import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../gateway/src/config/load.ts';
import type { Config } from '../../gateway/src/config/schema.ts';
import { startGateway } from '../../gateway/src/main.ts';
import { silentLog } from '../../gateway/src/pipeline.ts';
import { freePort } from '../helpers/env.ts';
import { TEST_VIEWER_TOKEN, testViewerToken } from '../helpers/viewerFetch.ts';
import { PRODUCT_SCENARIOS } from '../sim/helpers.ts';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');
const SCENARIOS = join(ROOT, 'firmware-sim/scenarios');
const names = readdirSync(SCENARIOS)
  .filter((f) => f.endsWith('.yaml') && f !== 'gateway.yaml' && f !== 'fleet.yaml')
  .map((f) => f.replace(/\.yaml$/, ''));

/** Every scenario, run by the simulator against a fresh real gateway, with `--check` on its alerts. */
describe('simulator scenarios against the real gateway (--check)', () => {
  it('has the scenarios the product names', () => {
    for (const n of PRODUCT_SCENARIOS) expect(names).toContain(n);
  });

  const check = async (name: string, mutate: (c: Config) => Config = (c) => c) => {
    const dataDir = mkdtempSync(join(tmpdir(), `gw-scn-${name}-`));
    const config = mutate(loadConfig(join(SCENARIOS, 'gateway.yaml'), {}));
    const gw = await startGateway(
      {
        ...config,
        dataDir,
        // Reads need a token: --check reads the alerts as the test viewer.
        auth: { ...config.auth, tokens: [...config.auth.tokens, testViewerToken] },
        http: { ...config.http, port: await freePort(), host: '127.0.0.1' },
        mqtt: { ...config.mqtt, port: await freePort(), host: '127.0.0.1' },
      },
      { log: silentLog },
    );
    try {
      const res = await run(
        process.execPath,
        [
          '--import',
          'tsx',
          join(ROOT, 'firmware-sim/src/cli.ts'),
          '--scenario',
          name,
          '--mqtt',
          gw.mqttUrl,
          '--speed',
          '86400',
          '--check',
          '--api',
          gw.httpUrl,
          '--token',
          TEST_VIEWER_TOKEN,
          '--check-timeout',
          '20s',
        ],
        { cwd: ROOT, maxBuffer: 1 << 24 },
      ).then(
        (r) => ({ code: 0, out: r.stdout + r.stderr }),
        (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, out: e.stdout + e.stderr }),
      );
      return res;
    } finally {
      await gw.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  };

  for (const name of names)
    it(`${name}`, async () => {
      const res = await check(name);
      expect(res.code, res.out).toBe(0);
    }, 90_000);

  it('--check fails when the gateway raises other alerts than the scenario expects', async () => {
    // The same 0.62 in storm against a site whose threshold is 0.7 in: no storm alert, so the check must fail.
    const res = await check('storm-0.62in', (c) => ({
      ...c,
      sites: c.sites.map((s) =>
        s.id === 'maple-ridge'
          ? {
              ...s,
              storm: { ...s.storm, thresholdIn: 0.7 },
              lawOverrides: { 'storm-threshold': 'A threshold above the law, with its reason.' },
            }
          : s,
      ),
    }));
    expect(res.code, res.out).not.toBe(0);
    expect(res.out).toMatch(/storm-inspection/);
  }, 90_000);
});
