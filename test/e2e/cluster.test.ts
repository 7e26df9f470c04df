/**
 * The gateway on a real 3-node NATS cluster (JetStream, MQTT 3.1.1), as gateway processes: two gateways
 * on one cluster each keep only their own sites; a node killed under load is failed over with nothing
 * acknowledged lost or stored twice; a gateway killed and started again resumes its session and gets what
 * was published meanwhile. And one view of many gateways: gateway A publishes its sites' state retained
 * on the broker; gateway B follows it. A storm on A's rain gauge appears as an open storm-inspection duty
 * in B's GET /api/fleet, marked with A's id and link; killing A (SIGKILL) makes the broker publish A's
 * last will, and B marks A's sites stale.
 *
 * One file, so its clusters run one after the other: two 3-node clusters started at once on a loaded
 * machine compete for ports and for the time their JetStream needs to elect its leaders.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FleetView } from '../../gateway/src/fleet/stage.ts';
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

const fleetOf = async (gw: GatewayChild) =>
  (await (await fetch(`${gw.httpUrl}/api/fleet`)).json()) as FleetView;

describe.skipIf(!haveNatsServer())('the town-wide view across gateways', { timeout: 120_000 }, () => {
  let cluster: NatsCluster;
  let a: GatewayChild;
  let b: GatewayChild;
  beforeAll(async () => {
    cluster = await startNatsCluster();
    const [n1, n2, n3] = cluster.mqttUrls as [string, string, string];
    a = await startGatewayChild(
      clusterGatewayConfig(
        'town-a',
        [n1, n2, n3],
        [{ id: 'maple', kind: 'construction', devices: ['rg-1'] }],
        {
          fleet: { url: 'http://gw-a.town.example:8080', publishSeconds: 5 },
        },
      ),
    );
    b = await startGatewayChild(
      clusterGatewayConfig('town-b', [n3, n1, n2], [{ id: 'oak', devices: ['t1'] }], {
        fleet: { follow: ['*'] },
      }),
    );
    await mqttConnected(a);
    await mqttConnected(b);
  }, 90_000);
  afterAll(async () => {
    await a?.cleanup();
    await b?.cleanup();
    await cluster?.stop();
  });

  it("a storm at A's site is an open duty in B's view; A killed, its sites are stale there", async () => {
    const initial = await waitFor(
      // A's state as A now publishes it: the one retained from before A's restart (the test above) may
      // arrive first, marked offline by A's will.
      async () =>
        (await fleetOf(b)).gateways.find(
          (g) => g.gatewayId === 'town-a' && g.sites.length > 0 && g.status === 'online' && !g.stale,
        ),
      20_000,
      "A's state on B, online",
    );
    expect(initial).toMatchObject({ status: 'online', stale: false, url: 'http://gw-a.town.example:8080' });
    expect(initial.sites.map((s) => s.id)).toEqual(['maple']);
    expect(initial.sites[0]!.duties.filter((d) => d.rule === 'storm-inspection')).toEqual([]);
    // B follows everyone but itself; A follows no one.
    expect((await fleetOf(b)).gateways.map((g) => g.gatewayId)).toEqual(['town-a']);
    expect((await fleetOf(a)).gateways).toEqual([]);

    // 60 tips of 0.01 in over an hour, three hours ago, through node 2.
    const gauge = await mqtt.connectAsync(cluster.mqttUrls[1]!, {
      protocolVersion: 4,
      clientId: 'maple/rg-1',
    });
    const t0 = Date.now() - 3 * 3_600_000;
    for (let i = 0; i <= 60; i++)
      await gauge.publishAsync(
        'sites/maple/devices/rg-1/telemetry',
        JSON.stringify({ ts: t0 + i * 60_000, seq: i, rainTips: 1000 + i }),
        { qos: 1 },
      );
    await gauge.endAsync();

    // The due time follows the storm's end as its last readings come: B's view catches up with A's own.
    let own: Array<{ id: string; dueAt: string }> = [];
    const withDuty = await waitFor(
      async () => {
        own = (await (await fetch(`${a.httpUrl}/api/alerts?rule=storm-inspection`)).json()) as typeof own;
        const g = (await fleetOf(b)).gateways.find((x) => x.gatewayId === 'town-a');
        const duty = g?.sites[0]?.duties.find((d) => d.rule === 'storm-inspection');
        return g && duty && duty.dueAt === own[0]?.dueAt ? { g, duty } : undefined;
      },
      20_000,
      "the storm-inspection duty in B's view, as A has it",
    );
    expect(own).toHaveLength(1);
    expect(withDuty.duty).toMatchObject({
      id: own[0]!.id,
      siteId: 'maple',
      status: 'open',
      dueAt: own[0]!.dueAt,
    });
    expect(withDuty.g.stale).toBe(false);
    // Read-only: B's own sites and alerts are still its own (its construction site asks for its own
    // developer's records); none of A's is among them.
    const bAlerts = (await (await fetch(`${b.httpUrl}/api/alerts`)).json()) as Array<{ siteId: string }>;
    expect(bAlerts.filter((x) => x.siteId === 'maple')).toEqual([]);

    await a.stop('SIGKILL');
    const stale = await waitFor(
      async () => (await fleetOf(b)).gateways.find((g) => g.gatewayId === 'town-a' && g.stale),
      20_000,
      "A's sites stale on B after A's will",
    );
    expect(stale.status).toBe('offline');
    expect(stale.sites[0]!.duties.some((d) => d.rule === 'storm-inspection')).toBe(true);
  });
});
