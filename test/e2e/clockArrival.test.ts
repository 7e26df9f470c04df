/**
 * Readings without their own `ts` during a wall clock fault, against the real gateway process under
 * libfaketime (the wall clock jumps, the monotonic clock does not): they are stamped with the time the
 * engine's clock guard trusts, not the jumped wall clock. A jump of 8 days ahead mid-run: none stored 8
 * days ahead, no device-silent alert raised, no notification. Before, most were stored 8 days ahead and a
 * false device-silent was raised and resolved.
 * Needs Debian's `faketime` package; with CI=true its absence fails the suite instead of skipping it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import mqtt from 'mqtt';
import { afterAll, describe, expect, it } from 'vitest';
import { type GatewayProcess, jumpingWallClock, onFixedPorts, spawnGateway } from '../helpers/child.ts';
import { haveBinary, waitFor } from '../helpers/env.ts';
import { testConfigInput } from '../helpers/gateway.ts';

const MIN = 60_000;

type Health = { components: Array<{ name: string; ok: boolean; detail?: string }> };

describe.runIf(haveBinary('faketime'))('arrival times during a wall clock jump (libfaketime)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-arrival-'));
  let proc: GatewayProcess | undefined;
  afterAll(async () => {
    await proc?.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  it('stamps readings without ts with the guarded time: none 8 days ahead, no device-silent', async () => {
    const {
      config,
      httpUrl: http,
      mqttUrl,
    } = await onFixedPorts(
      testConfigInput({ ingest: { deviceRatePerSec: 10_000, deviceBurst: 10_000 } }),
      dir,
    );
    const { env, set: setClock } = jumpingWallClock(dir);
    proc = await spawnGateway(config, join(dir, 'config.json'), env);
    const api = async <T>(path: string) => (await (await fetch(`${http}${path}`)).json()) as T;
    const clock = async () => (await api<Health>('/api/health')).components.find((c) => c.name === 'clock')!;
    const query = <T>(sql: string) => {
      const db = new Database(join(config.dataDir, 'gateway.db'), { readonly: true });
      try {
        return db.prepare(sql).all() as T[];
      } finally {
        db.close();
      }
    };
    const c = await mqtt.connectAsync(mqttUrl, {
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
    });
    const topic = 'sites/maple-ridge/devices/rg-1/telemetry';
    let seq = 0;
    const send = async (n: number) => {
      for (let i = 0; i < n; i++)
        await c.publishAsync(topic, JSON.stringify({ seq: ++seq, batteryV: 12.4 }), { qos: 1 });
    };
    await send(3);
    const notificationsBefore = query('SELECT id FROM notification_events').length;

    // Eight days ahead: a clock fault; readings keep coming without ts.
    setClock('+8d');
    await waitFor(async () => !(await clock()).ok, 20_000, 'the clock fault in /api/health');
    await send(10);
    await c.endAsync();

    const realNow = Date.now();
    const stored = query<{ ts: number }>("SELECT ts FROM readings WHERE device_id = 'rg-1' ORDER BY id");
    expect(stored).toHaveLength(13);
    // All within minutes of the real time, none 8 days ahead.
    for (const r of stored) expect(Math.abs(r.ts - realNow)).toBeLessThan(5 * MIN);
    expect(await api<unknown[]>('/api/alerts?rule=device-silent')).toEqual([]);

    // Back in step: still no silence, no notification of one.
    setClock('+0');
    await waitFor(async () => (await clock()).ok, 20_000, 'the clock back in step');
    expect(await api<unknown[]>('/api/alerts?rule=device-silent')).toEqual([]);
    expect(query('SELECT id FROM notification_events')).toHaveLength(notificationsBefore);
  }, 90_000);
});
