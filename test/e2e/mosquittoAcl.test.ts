/**
 * The ACL `npm run mosquitto-acl` generates, on a real Mosquitto (password file by `mosquitto_passwd`,
 * anonymous access off) shared by two gateway processes that follow each other: each sees the other's
 * site in GET /api/fleet, a device publishes its own telemetry and the gateway stores it, a gateway reads
 * the other's retained checkpoint, and it cannot overwrite the other's state, nor write the other's
 * sites' `alerts/` or the other's Home Assistant nodes (retained: before, any gateway could).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haId } from '../../gateway/src/config/homeassistant.ts';
import type { FleetView } from '../../gateway/src/fleet/stage.ts';
import { type GatewayChild, startGatewayChild } from '../helpers/child.ts';
import { clusterGatewayConfig, readingTs, storedSeqs } from '../helpers/clusterGateway.ts';
import { freePort, waitFor } from '../helpers/env.ts';
import { testHash } from '../helpers/gateway.ts';
import { haveMosquitto, type Mosquitto, start as startMosquitto } from '../helpers/mosquitto.ts';

const ROOT = join(import.meta.dirname, '../..');
const PASSWORDS: Record<string, string> = {
  'gw-north': 'pw-gw-north',
  'gw-south': 'pw-gw-south',
  'north/t1': 'pw-north-t1',
  'south/t1': 'pw-south-t1',
  watcher: 'pw-watcher',
};

const fleetOf = async (gw: GatewayChild) =>
  (await (await fetch(`${gw.httpUrl}/api/fleet`)).json()) as FleetView;

/** The first message on a topic a client logged in as `username` receives within 5 s (a retained one at once). */
async function firstMessage(url: string, username: string, topic: string): Promise<string> {
  const c = await mqtt.connectAsync(url, {
    username,
    password: PASSWORDS[username]!,
    clientId: `${username}-reader-${Date.now()}`,
    reconnectPeriod: 0,
  });
  try {
    // Nothing retained yet: '' after a while, and the caller asks again.
    const got = new Promise<string>((resolve) => {
      c.on('message', (_t, p) => resolve(p.toString()));
      setTimeout(() => resolve(''), 5000).unref();
    });
    await c.subscribeAsync(topic, { qos: 1 });
    return await got;
  } finally {
    await c.endAsync();
  }
}

describe.skipIf(!haveMosquitto(['mosquitto', 'mosquitto_passwd']))(
  'the generated Mosquitto ACL, two gateways following each other',
  { timeout: 120_000 },
  () => {
    let broker: Mosquitto;
    let north: GatewayChild;
    let south: GatewayChild;
    let acl = '';
    const dir = mkdtempSync(join(tmpdir(), 'gw-acl-'));
    const config = (gatewayId: string, site: string, port: number) =>
      clusterGatewayConfig(gatewayId, [`mqtt://127.0.0.1:${port}`], [{ id: site, devices: ['t1'] }], {
        mqtt: {
          url: `mqtt://127.0.0.1:${port}`,
          username: `gw-${site}`,
          password: PASSWORDS[`gw-${site}`],
          // Reads what the gateways publish for people: alerts and Home Assistant's discovery.
          ...(site === 'north'
            ? {
                users: [
                  {
                    username: 'watcher',
                    passwordHash: testHash(PASSWORDS.watcher!),
                    subscribe: ['alerts/#', 'homeassistant/#'],
                  },
                ],
              }
            : {}),
        },
        homeassistant: { discovery: true, publishSeconds: 60 },
        fleet: { follow: ['*'], publishSeconds: 5 },
        evidence: { checkpointIntervalSeconds: 1 },
      });

    beforeAll(async () => {
      const port = await freePort();
      const files = [
        ['north-gw', 'north'],
        ['south-gw', 'south'],
      ].map(([id, site]) => {
        const file = join(dir, `${site}.json`);
        writeFileSync(file, JSON.stringify({ ...config(id!, site!, port), dataDir: join(dir, site!) }));
        return file;
      });
      acl = execFileSync(
        process.execPath,
        ['--import', 'tsx', join(ROOT, 'gateway/src/tools/mosquittoAcl.ts'), ...files],
        { cwd: ROOT, encoding: 'utf8' },
      );
      const aclFile = join(dir, 'acl');
      writeFileSync(aclFile, acl);
      broker = await startMosquitto({ port, users: PASSWORDS, extraConfig: [`acl_file ${aclFile}`] });
      [north, south] = await Promise.all([
        startGatewayChild(JSON.parse(readFileSync(files[0]!, 'utf8')) as Record<string, unknown>),
        startGatewayChild(JSON.parse(readFileSync(files[1]!, 'utf8')) as Record<string, unknown>),
      ]);
    }, 90_000);
    afterAll(async () => {
      await north?.cleanup();
      await south?.cleanup();
      await broker?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it("each gateway sees the other's site in its fleet view", async () => {
      expect(acl).toMatch(/^user gw-north\n(topic .*\n)*topic readwrite gateway\/north-gw\/#\n/m);
      expect(acl).toMatch(/^user gw-south\n(topic .*\n)*topic read gateway\/\+\/state\n/m);
      for (const [gw, other, site] of [
        [south, 'north-gw', 'north'],
        [north, 'south-gw', 'south'],
      ] as const) {
        const seen = await waitFor(
          async () => (await fleetOf(gw)).gateways.find((g) => g.gatewayId === other && g.sites.length > 0),
          30_000,
          `${other}'s state on the other gateway`,
        );
        expect(seen).toMatchObject({ status: 'online', stale: false });
        expect(seen.sites.map((s) => s.id)).toEqual([site]);
      }
    });

    it('a device writes its own telemetry; a gateway reads the other’s checkpoint and cannot overwrite its state', async () => {
      const dev = await mqtt.connectAsync(broker.url, {
        username: 'north/t1',
        password: PASSWORDS['north/t1']!,
        clientId: 'north/t1',
        reconnectPeriod: 0,
      });
      await dev.publishAsync(
        'sites/north/devices/t1/telemetry',
        JSON.stringify({ seq: 1, ts: readingTs(1), levelIn: 12 }),
        {
          qos: 1,
        },
      );
      await dev.endAsync();
      await waitFor(
        () => storedSeqs(north.dataDir, 'north', 't1').includes(1),
        30_000,
        "north's reading stored",
      );

      const checkpoint = await waitFor(
        () => firstMessage(broker.url, 'gw-south', 'gateway/north-gw/checkpoint'),
        30_000,
        "north's checkpoint read by south",
      );
      expect(checkpoint).toMatch(/north-gw/);

      const forger = await mqtt.connectAsync(broker.url, {
        username: 'gw-south',
        password: PASSWORDS['gw-south']!,
        clientId: 'gw-south-forger',
        reconnectPeriod: 0,
      });
      await forger.publishAsync('gateway/north-gw/state', 'forged', { qos: 1, retain: true });
      await forger.endAsync();
      const state = await firstMessage(broker.url, 'gw-south', 'gateway/north-gw/state');
      expect(state).not.toBe('forged');
      expect(JSON.parse(state)).toMatchObject({ gatewayId: 'north-gw' });
    });
    it("a gateway writes its own sites' alerts and Home Assistant nodes, never the other's (retained)", async () => {
      const north = { node: haId('north-gw', 'north'), device: haId('north-gw', 'north', 't1') };
      const south = { node: haId('south-gw', 'south') };
      expect(acl).toMatch(/^user gw-south\n(topic .*\n)*topic write alerts\/south\/#\n/m);
      expect(acl).not.toContain('topic write alerts/#');
      /** Publishes retained as gw-south over MQTT 5, where the broker answers a denied publish "not authorized". */
      const publishAsSouth = async (topic: string, n: number) => {
        const c = await mqtt.connectAsync(broker.url, {
          username: 'gw-south',
          password: PASSWORDS['gw-south']!,
          clientId: `gw-south-forger-${n + 2}`,
          protocolVersion: 5,
          reconnectPeriod: 0,
        });
        try {
          await c.publishAsync(topic, 'from south', { qos: 1, retain: true });
        } finally {
          await c.endAsync();
        }
      };
      const forged = [
        'alerts/north/forged',
        `homeassistant/binary_sensor/${north.node}/forged/config`,
        `homeassistant/sensor/${north.device}/forged/config`,
      ];
      const own = ['alerts/south/allowed', `homeassistant/binary_sensor/${south.node}/allowed/config`];
      let n = 0;
      for (const t of forged) await expect(publishAsSouth(t, n++), t).rejects.toThrow(/not authori[sz]ed/i);
      for (const t of own) await publishAsSouth(t, n++);
      // What south may write is kept (retained): the watcher reads it, so a forged one would be read too.
      for (const t of own)
        expect(await waitFor(() => firstMessage(broker.url, 'watcher', t), 20_000, t)).toBe('from south');
      for (const t of forged) expect(await firstMessage(broker.url, 'watcher', t)).toBe('');
    });
  },
);
