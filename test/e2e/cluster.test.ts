/**
 * The gateway on a real 3-node NATS cluster (JetStream, MQTT 3.1.1), as gateway processes: two gateways
 * on one cluster each keep only their own sites; a node killed under load is failed over with nothing
 * acknowledged lost or stored twice; a gateway killed and started again resumes its session and gets what
 * was published meanwhile.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayChild, startGatewayChild } from '../helpers/child.ts';
import {
  clusterGatewayConfig,
  type Device,
  device,
  mqttConnected,
  storedBySite,
  storedSeqs,
} from '../helpers/clusterGateway.ts';
import { waitFor } from '../helpers/env.ts';
import { haveNatsServer, type NatsCluster, startNatsCluster } from '../helpers/nats.ts';

const missing = (acked: Set<number>, stored: number[]) => {
  const have = new Set(stored);
  return [...acked].filter((s) => !have.has(s));
};
const duplicates = (stored: number[]) => stored.filter((s, i) => i > 0 && stored[i - 1] === s);

describe.skipIf(!haveNatsServer())('gateways on a 3-node NATS cluster', { timeout: 180_000 }, () => {
  let cluster: NatsCluster;
  const children: GatewayChild[] = [];
  const dirs: string[] = [];
  const devices: Device[] = [];
  beforeAll(async () => {
    cluster = await startNatsCluster();
  }, 90_000);
  afterAll(async () => {
    await Promise.all(devices.map((d) => d.end().catch(() => undefined)));
    for (const c of children) await c.cleanup();
    await cluster?.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const start = async (config: Record<string, unknown>, dataDir?: string) => {
    const gw = await startGatewayChild(config, dataDir ? { dataDir } : {});
    children.push(gw);
    return gw;
  };
  const dev = async (url: string, site: string, id: string) => {
    const d = await device(url, site, id);
    devices.push(d);
    return d;
  };

  it('two gateways on one cluster each store only their own sites', async () => {
    const [n1, n2, n3] = cluster.mqttUrls as [string, string, string];
    const a = await start(
      clusterGatewayConfig('own-a', cluster.mqttUrls, [{ id: 'north', devices: ['t1'] }]),
    );
    const b = await start(clusterGatewayConfig('own-b', [n2, n3, n1], [{ id: 'south', devices: ['t1'] }]));
    await mqttConnected(a);
    await mqttConnected(b);
    const north = await dev(n3, 'north', 't1');
    const south = await dev(n1, 'south', 't1');
    await Promise.all([north.send(1, 300), south.send(1, 200)]);
    expect(north.acked.size).toBe(300);
    expect(south.acked.size).toBe(200);
    await waitFor(() => storedBySite(a.dataDir).north === 300, 20_000, "A's 300 readings");
    await waitFor(() => storedBySite(b.dataDir).south === 200, 20_000, "B's 200 readings");
    expect(storedBySite(a.dataDir)).toEqual({ north: 300 });
    expect(storedBySite(b.dataDir)).toEqual({ south: 200 });
    // Neither saw the other's devices at all (no rejection of an unregistered device).
    for (const gw of [a, b]) {
      const rej = (await (await fetch(`${gw.httpUrl}/api/rejections`)).json()) as
        | unknown[]
        | { items: unknown[] };
      expect(Array.isArray(rej) ? rej : rej.items).toEqual([]);
    }
  });

  it('a gateway killed (SIGKILL) and started again resumes its session and stores what came meanwhile', async () => {
    const [n1, n2, n3] = cluster.mqttUrls as [string, string, string];
    const dataDir = join(mkdtempSync(join(tmpdir(), 'gw-resume-')), 'data');
    dirs.push(join(dataDir, '..'));
    const config = clusterGatewayConfig('resume', [n2, n3, n1], [{ id: 'west', devices: ['d1'] }]);
    const first = await start(config, dataDir);
    await mqttConnected(first, 60_000);
    const d = await dev(n3, 'west', 'd1');
    await d.send(1, 200);
    await waitFor(() => storedSeqs(dataDir, 'west', 'd1').length === 200, 20_000, 'the first 200');
    await first.stop('SIGKILL');

    await d.send(201, 700);
    expect(d.acked.size).toBe(700);
    const second = await start(config, dataDir);
    await mqttConnected(second, 60_000);
    await waitFor(
      () => storedSeqs(dataDir, 'west', 'd1').length >= 700,
      30_000,
      'the 500 sent while it was down',
    );
    const stored = storedSeqs(dataDir, 'west', 'd1');
    expect(duplicates(stored)).toEqual([]);
    expect(missing(d.acked, stored)).toEqual([]);
    expect(second.output()).toMatch(/"session":"resumed"/);
  });
  it('fails over when its node is killed under load: every acknowledged reading stored exactly once', async () => {
    const [n1, n2, n3] = cluster.mqttUrls as [string, string, string];
    const gw = await start(
      clusterGatewayConfig('failover', [n1, n2, n3], [{ id: 'east', devices: ['d1', 'd2', 'd3', 'd4'] }]),
    );
    expect(await mqttConnected(gw)).toBe(new URL(n1).host);
    const ds = await Promise.all(['d1', 'd2', 'd3', 'd4'].map((id, i) => dev(i % 2 ? n3 : n2, 'east', id)));
    const perDevice = 1000;
    const load = Promise.all(ds.map((d) => d.send(1, perDevice, 10)));
    await waitFor(
      () => (storedBySite(gw.dataDir).east ?? 0) >= 800,
      30_000,
      'a good part of the load stored before the kill',
    );
    await cluster.kill(0, 'SIGKILL');
    await load;
    const node = await mqttConnected(gw, 60_000);
    expect(node).not.toBe(new URL(n1).host);
    const acked = ds.reduce((n, d) => n + d.acked.size, 0);
    // Nearly all were acknowledged by the surviving nodes (publishes in flight at the kill may not be).
    expect(acked).toBeGreaterThan(perDevice * ds.length * 0.9);
    await waitFor(
      () => ds.every((d, i) => missing(d.acked, storedSeqs(gw.dataDir, 'east', `d${i + 1}`)).length === 0),
      60_000,
      'every acknowledged reading stored',
    ).catch((e: Error) => {
      const gaps = ds.map((d, i) => missing(d.acked, storedSeqs(gw.dataDir, 'east', `d${i + 1}`)).length);
      throw new Error(`${e.message}; missing per device ${gaps.join(', ')}\n${gw.output().slice(-3000)}`);
    });
    for (let i = 0; i < ds.length; i++) {
      const stored = storedSeqs(gw.dataDir, 'east', `d${i + 1}`);
      expect(duplicates(stored)).toEqual([]);
      expect(missing(ds[i]!.acked, stored)).toEqual([]);
    }
    expect(gw.output()).toMatch(/mqtt-external: reconnected/);
    // Node 1 stays down: started again, its freed ports may have gone to another test's servers meanwhile.
  });
});
