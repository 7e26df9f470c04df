/**
 * A data disk that readings fill to its last byte (issue 31, break 2), against the gateway process: a
 * 48 MB tmpfs (test/helpers/disk.ts). Readings are taken until the store turns read-only; then the disk
 * is filled to its last byte while every timer that writes goes on (the evidence checkpoint each second,
 * device states, retention) and a reader holds the store open (so the write-ahead log cannot start over). Before, the checkpoint timer's insert threw SQLITE_FULL
 * uncaught and the process exited, and again about 10 s after each restart. Now each failure turns the
 * store read-only (health red, counted in gateway_store_write_failures_total; a timer's write is put off
 * while it is, gateway_store_writes_deferred_total) and the gateway stays up,
 * through a restart on the full disk too; once space returns it takes data again, and every reading it
 * acknowledged is stored. The long form is `npm run soak:disk`.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayChild, startGatewayChild } from '../helpers/child.ts';
import { type Disk, makeDisk } from '../helpers/disk.ts';
import { waitFor } from '../helpers/env.ts';
import { device, faultConfig, metrics, metricValue, publishOutcome, T } from '../helpers/faults.ts';
import { testHash } from '../helpers/gateway.ts';

const health = async (gw: GatewayChild) => {
  const r = await fetch(`${gw.httpUrl}/api/health`);
  const body = (await r.json()) as { components: Array<{ name: string; ok: boolean; detail: string }> };
  return { code: r.status, store: body.components.find((c) => c.name === 'store')! };
};
const storedSeqs = (dataDir: string): number[] => {
  const db = new Database(join(dataDir, 'gateway.db'), { readonly: true });
  try {
    return (
      db.prepare("SELECT seq FROM readings WHERE device_id = 'rg-1' ORDER BY seq").all() as Array<{
        seq: number;
      }>
    ).map((r) => r.seq);
  } finally {
    db.close();
  }
};
/** Writes that met the full disk or were put off while the store is read-only; throws once the process is gone. */
const metFullDisk = async (gw: GatewayChild, where: string) => {
  if (!gw.alive()) throw new Error(`the gateway exited:\n${gw.output().slice(-3000)}`);
  const m = await metrics(gw.httpUrl);
  const labels = `where="${where}"`;
  return (
    metricValue(m, 'gateway_store_write_failures_total', labels) +
    metricValue(m, 'gateway_store_writes_deferred_total', labels)
  );
};

describe('a data disk filled to its last byte (gateway process)', () => {
  let disk: Disk;
  let gw: GatewayChild | undefined;
  beforeAll(() => {
    disk = makeDisk(48);
  });
  afterAll(async () => {
    await gw?.cleanup();
    disk?.dispose();
  });

  it('stays up and read-only, through a restart, and loses nothing it acknowledged', async () => {
    const dataDir = join(disk.dir, 'data');
    mkdirSync(dataDir);
    const config = faultConfig({
      storage: { minFreeMb: disk.minFreeMb },
      evidence: { checkpointIntervalSeconds: 1 },
      auth: {
        users: [
          {
            name: 'Olive Officer',
            email: 'olive@chester.example',
            role: 'inspector',
            passwordHash: testHash('olive-right-password'),
          },
        ],
      },
    });
    gw = await startGatewayChild(config, { dataDir });
    // A careless operator reads the store with sqlite3 and leaves the read open: the write-ahead log
    // cannot start over while the reader holds its snapshot, so every write needs new space.
    const reader = new Database(join(dataDir, 'gateway.db'), { readonly: true });
    reader.exec('BEGIN');
    reader.prepare('SELECT COUNT(*) FROM readings').get();
    // Everything but the last 4 MB taken away; readings go on while the rest is taken to the last byte,
    // so the evidence log has grown since its last checkpoint when the disk is full.
    disk.fill('filler', disk.minFreeMb + 3);
    const c = await device(gw.mqttUrl, 'rg-1', { reconnectPeriod: 0 });
    const t0 = Date.now() - 30 * 86_400_000;
    const acked: number[] = [];
    for (let i = 0; i < 200_000; i++) {
      if (i === 100) disk.fill('filler-2');
      const body = JSON.stringify({ seq: i, ts: t0 + i * 10_000, rainTips: i });
      if ((await publishOutcome(c, T('rg-1'), body)) !== 'acknowledged') break;
      acked.push(i);
    }
    c.end(true);
    expect(acked.length).toBeGreaterThanOrEqual(100);
    const signIn = await fetch(`${gw.httpUrl}/api/auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'olive@chester.example', password: 'olive-right-password' }),
    });
    expect(signIn.status).toBeGreaterThanOrEqual(200);
    // The checkpoint timer (each second) has met the full disk, and the gateway is still there.
    const before = await metFullDisk(gw, 'evidence-checkpoint');
    await waitFor(
      async () => (await metFullDisk(gw!, 'evidence-checkpoint')) > before || undefined,
      20_000,
      'the checkpoint timer meeting the full disk',
    );
    const h = await health(gw);
    expect(h.code).toBe(503);
    expect(h.store.detail).toMatch(/read-only/);
    expect((await fetch(`${gw.httpUrl}/api/alerts`)).status).toBe(200);
    expect(gw.alive()).toBe(true);

    reader.exec('COMMIT');
    reader.close();
    // A restart on the full disk comes up read-only and stays up while its timers meet the full disk.
    await gw.stop();
    gw = await startGatewayChild(config, { dataDir });
    await waitFor(
      async () => (await metFullDisk(gw!, 'evidence-checkpoint')) > 1 || undefined,
      30_000,
      'the restarted checkpoint timer meeting the full disk twice',
    );
    expect(gw.alive()).toBe(true);
    expect((await health(gw)).code).toBe(503);

    disk.free('filler');
    disk.free('filler-2');
    await waitFor(async () => (await health(gw!)).code === 200 || undefined, 30_000, 'health green again');
    const again = await device(gw.mqttUrl, 'rg-1', { reconnectPeriod: 0 });
    const next = acked.length + 1000;
    expect(
      await publishOutcome(
        again,
        T('rg-1'),
        JSON.stringify({ seq: next, ts: Date.now() - 60_000, rainTips: next }),
      ),
    ).toBe('acknowledged');
    again.end(true);
    const stored = new Set(storedSeqs(dataDir));
    expect(acked.filter((s) => !stored.has(s))).toEqual([]);
    expect(stored.has(next)).toBe(true);
  }, 180_000);
});
