/**
 * One view of many gateways, as gateway processes on a real 3-node NATS cluster: gateway A publishes its
 * sites' state retained on the broker; gateway B follows it. A storm on A's rain gauge appears as an open
 * storm-inspection duty in B's GET /api/fleet, marked with A's id and link; killing A (SIGKILL) makes the
 * broker publish A's last will, and B marks A's sites stale.
 */
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FleetView } from '../../gateway/src/fleet/stage.ts';
import { type GatewayChild, startGatewayChild } from '../helpers/child.ts';
import { clusterGatewayConfig, mqttConnected } from '../helpers/clusterGateway.ts';
import { waitFor } from '../helpers/env.ts';
import { haveNatsServer, type NatsCluster, startNatsCluster } from '../helpers/nats.ts';

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
      async () => (await fleetOf(b)).gateways.find((g) => g.gatewayId === 'town-a' && g.sites.length > 0),
      20_000,
      "A's state on B",
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
    // Read-only: B's own sites and alerts are still its own.
    expect(((await (await fetch(`${b.httpUrl}/api/alerts`)).json()) as unknown[]).length).toBe(0);

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
