/**
 * Faults of the box, against the gateway process: the data disk fills up while it runs (health red at
 * once with the reason, QoS 1 refused unacknowledged, the API read-only, and it resumes by itself when
 * space returns); it starts on a full disk (up, read-only, and onto the real store once space is back);
 * and SIGTERM with an idle client connected stops it within 10 s.
 *
 * The disk is an 8 MB tmpfs the test mounts (as root; test/helpers/disk.ts, simulated where mounting is
 * not allowed, never skipped).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayChild, startGatewayChild } from '../helpers/child.ts';
import { type Disk, makeDisk } from '../helpers/disk.ts';
import { waitFor } from '../helpers/env.ts';
import { device, faultConfig, metrics, metricValue, publishOutcome, T } from '../helpers/faults.ts';

const health = async (gw: GatewayChild) => {
  const r = await fetch(`${gw.httpUrl}/api/health`);
  const body = (await r.json()) as {
    status: string;
    components: Array<{ name: string; ok: boolean; detail: string }>;
  };
  return { code: r.status, status: body.status, store: body.components.find((c) => c.name === 'store')! };
};
const readingsIn = (dataDir: string) => {
  const db = new Database(join(dataDir, 'gateway.db'), { readonly: true });
  try {
    return (db.prepare('SELECT COUNT(*) AS n FROM readings').get() as { n: number }).n;
  } finally {
    db.close();
  }
};

describe('a full data disk (gateway process)', () => {
  let disk: Disk;
  let gw: GatewayChild | undefined;
  beforeAll(() => {
    disk = makeDisk();
  });
  afterAll(async () => {
    await gw?.cleanup();
    disk?.dispose();
  });

  it('turns health red at once, refuses QoS 1 unacknowledged, serves the API read-only, and resumes when space returns', async () => {
    const dataDir = join(disk.dir, 'data');
    mkdirSync(dataDir);
    gw = await startGatewayChild(faultConfig({ storage: { minFreeMb: disk.minFreeMb } }), { dataDir });
    const c = await device(gw.mqttUrl, 'rg-1', { reconnectPeriod: 0 });
    const t0 = Date.now() - 3_600_000;
    for (let i = 0; i < 5; i++)
      expect(
        await publishOutcome(c, T('rg-1'), JSON.stringify({ seq: i, ts: t0 + i * 60_000, rainTips: i })),
      ).toBe('acknowledged');
    expect((await health(gw)).code).toBe(200);

    disk.fill('filler');
    const red = await waitFor(
      async () => {
        const h = await health(gw!);
        return h.code === 503 ? h : undefined;
      },
      3000,
      'health to turn red',
    );
    expect(red.status).toBe('degraded');
    expect(red.store.detail).toMatch(/read-only: (disk full|store writes fail)/);
    expect(
      await publishOutcome(c, T('rg-1'), JSON.stringify({ seq: 100, ts: t0 + 10 * 60_000, rainTips: 6 })),
    ).toBe('closed');
    const m = await metrics(gw.httpUrl);
    expect(metricValue(m, 'gateway_refused_total', 'reason="store_read_only"')).toBeGreaterThanOrEqual(1);
    // Reads go on; writes are refused with the reason.
    expect((await fetch(`${gw.httpUrl}/api/sites/maple-ridge`)).status).toBe(200);
    const write = await fetch(`${gw.httpUrl}/api/notifications/retry`, { method: 'POST' });
    expect(write.status).toBe(503);
    expect(((await write.json()) as { error: string }).error).toBe('READ_ONLY');
    expect(gw.alive()).toBe(true);

    disk.free('filler');
    await waitFor(async () => (await health(gw!)).code === 200, 5000, 'health to turn green again');
    const again = await device(gw.mqttUrl, 'rg-1');
    const resumed = await publishOutcome(
      again,
      T('rg-1'),
      JSON.stringify({ seq: 101, ts: t0 + 11 * 60_000, rainTips: 6 }),
    );
    expect(resumed).toBe('acknowledged');
    again.end(true);
    c.end(true);
    expect(readingsIn(dataDir)).toBe(6);
    await gw.cleanup();
    gw = undefined;
  }, 60_000);

  it('starts on a full disk read-only instead of exiting, and takes data once space returns', async () => {
    const dataDir = join(disk.dir, 'fresh');
    mkdirSync(dataDir);
    disk.fill('filler-2');
    gw = await startGatewayChild(faultConfig({ storage: { minFreeMb: disk.minFreeMb } }), { dataDir });
    // Time passes and it has not exited.
    await new Promise((r) => setTimeout(r, 1500));
    expect(gw.alive()).toBe(true);
    const h = await health(gw);
    expect(h.code).toBe(503);
    expect(h.store.detail).toMatch(/read-only/);
    const c = await device(gw.mqttUrl, 'rg-2');
    expect(await publishOutcome(c, T('rg-2'), JSON.stringify({ seq: 1, rainTips: 1 }))).toBe('closed');

    disk.free('filler-2');
    await waitFor(
      async () => {
        try {
          return (await health(gw!)).code === 200;
        } catch {
          return false;
        }
      },
      15_000,
      'the gateway to take writes',
    );
    const back = await device(gw.mqttUrl, 'rg-2');
    expect(await publishOutcome(back, T('rg-2'), JSON.stringify({ seq: 2, rainTips: 1 }))).toBe(
      'acknowledged',
    );
    back.end(true);
    expect(readingsIn(dataDir)).toBe(1);
    expect(gw.alive()).toBe(true);
  }, 60_000);
});

describe('stopping (gateway process)', () => {
  it('exits within 10 s of SIGTERM with an idle MQTT client connected, after the commits in flight', async () => {
    const gw = await startGatewayChild(faultConfig());
    try {
      const idle = await device(gw.mqttUrl, 'rg-1', { keepalive: 60 });
      const busy = await device(gw.mqttUrl, 'rg-2');
      const t0 = Date.now() - 3_600_000;
      const sent = Array.from({ length: 200 }, (_, i) =>
        publishOutcome(busy, T('rg-2'), JSON.stringify({ seq: i, ts: t0 + i * 1000, rainTips: i })),
      );
      // SIGTERM a moment into the stream, while its commits are in flight.
      await new Promise((r) => setTimeout(r, 50));
      const started = Date.now();
      gw.proc.kill('SIGTERM');
      const code = await gw.exited;
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(code).toBe(0);
      // Whatever was acknowledged is stored.
      const outcomes = await Promise.all(sent);
      const acked = outcomes.filter((o) => o === 'acknowledged').length;
      expect(readingsIn(gw.dataDir)).toBeGreaterThanOrEqual(acked);
      idle.end(true);
      busy.end(true);
    } finally {
      await gw.cleanup();
    }
  }, 30_000);
});
