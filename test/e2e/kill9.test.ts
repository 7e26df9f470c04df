import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import mqtt from 'mqtt';
import { afterAll, describe, expect, it } from 'vitest';
import { type GatewayProcess, onFixedPorts, spawnGateway } from '../helpers/child.ts';
import { waitFor } from '../helpers/env.ts';
import { testConfigInput } from '../helpers/gateway.ts';

describe('gateway killed with SIGKILL under QoS 1 load', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-kill-'));
  let proc: GatewayProcess | undefined;
  afterAll(async () => {
    await proc?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps every acknowledged reading', async () => {
    const { config, httpUrl, mqttUrl } = await onFixedPorts(
      testConfigInput({ ingest: { deviceRatePerSec: 100_000, deviceBurst: 100_000 } }),
      dir,
    );
    proc = await spawnGateway(config, join(dir, 'config.json'));

    const acked = new Set<number>();
    const devices = ['rg-1', 'rg-2', 'trap-1'];
    const clients = await Promise.all(
      devices.map((d) =>
        mqtt.connectAsync(mqttUrl, {
          clientId: `maple-ridge/${d}`,
          username: `maple-ridge/${d}`,
          password: `pw-${d}`,
          reconnectPeriod: 0,
        }),
      ),
    );
    const base = Date.now() - 86_400_000;
    let next = 0;
    let stop = false;
    const pumps = clients.map(async (c, i) => {
      const dev = devices[i]!;
      while (!stop) {
        const n = next++;
        const payload =
          dev === 'trap-1' ? { seq: n, ts: base + n, sedimentIn: 1 } : { seq: n, ts: base + n, rainTips: n };
        try {
          await c.publishAsync(`sites/maple-ridge/devices/${dev}/telemetry`, JSON.stringify(payload), {
            qos: 1,
          });
          acked.add(n);
        } catch {
          return; // the connection died with the gateway: this publish was never acknowledged
        }
      }
    });
    await waitFor(() => acked.size >= 3000, 30_000, '3000 acknowledged readings');
    await proc.kill('SIGKILL');
    stop = true;
    for (const c of clients) c.end(true);
    await Promise.all(pumps);
    const ackedNow = [...acked];
    expect(ackedNow.length).toBeGreaterThanOrEqual(3000);

    const db = new Database(join(config.dataDir, 'gateway.db'), { readonly: true });
    const stored = new Set(
      (db.prepare('SELECT seq FROM readings').all() as Array<{ seq: number }>).map((r) => r.seq),
    );
    db.close();
    const missing = ackedNow.filter((n) => !stored.has(n));
    expect(missing).toEqual([]);

    // The gateway starts again on the same store and keeps going.
    proc = await spawnGateway(config, join(dir, 'config.json'));
    const c = await mqtt.connectAsync(mqttUrl, {
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
    });
    await c.publishAsync(
      'sites/maple-ridge/devices/rg-1/telemetry',
      JSON.stringify({ seq: 999_999, rainTips: 1 }),
      { qos: 1 },
    );
    await c.endAsync();
    const health = (await (await fetch(`${httpUrl}/api/health`)).json()) as {
      components: Array<{ name: string; readings?: number }>;
    };
    expect(health.components.find((x) => x.name === 'store')?.readings).toBe(stored.size + 1);
  }, 120_000);
});
