/**
 * A login cannot take over another's session: a client id belongs to its login (a device's own ids are
 * its alone), and a session is resumed only by the login that holds it, so nobody reads what was queued
 * for somebody else. Real mqtt.js clients against the embedded broker.
 */
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../gateway/src/config/load.ts';
import { buildRegistry } from '../../../gateway/src/config/registry.ts';
import { BrokerPolicy } from '../../../gateway/src/ingest/mqtt/brokerPolicy.ts';
import { waitFor } from '../../helpers/env.ts';
import { login, S, sleep } from '../../helpers/faults.ts';
import { startTestGateway, type TestGateway, testConfigInput, testHash } from '../../helpers/gateway.ts';

const users = [
  { username: 'ops', passwordHash: testHash('pw-ops'), subscribe: ['alerts/#', 'sites/+/devices/+/status'] },
  { username: 'ops-oak', passwordHash: testHash('pw-ops-oak'), subscribe: ['alerts/oak-lane/#'] },
];

/** Connects and collects every message from the first packet on (a resumed session's come right after CONNACK). */
function collecting(
  url: string,
  opts: mqtt.IClientOptions,
): Promise<{ client: MqttClient; got: string[] } | string> {
  return new Promise((resolve) => {
    const got: string[] = [];
    const c = mqtt.connect(url, { reconnectPeriod: 0, ...opts });
    c.on('message', (t, p) => got.push(`${t} ${p}`));
    c.once('connect', () => resolve({ client: c, got }));
    c.once('error', (e) => {
      c.end(true);
      resolve(e.message);
    });
  });
}

describe('client ids belong to their login (embedded broker)', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    const input = testConfigInput();
    input.sites![0]!.devices![1]!.clientIds = ['rg-2-spare'];
    gw = await startTestGateway({ ...input, mqtt: { users } });
  });
  afterAll(async () => {
    await gw?.cleanup();
  });
  const as = (user: string, password: string, clientId: string, clean = true) =>
    collecting(gw.mqttUrl, { username: user, password, clientId, clean });

  it('refuses a device using another device id, without pushing the owner off', async () => {
    const rg2 = await as('maple-ridge/rg-2', 'pw-rg-2', 'maple-ridge/rg-2');
    if (typeof rg2 === 'string') throw new Error(rg2);
    let kicked = false;
    rg2.client.on('close', () => {
      kicked = true;
    });
    expect(await as('maple-ridge/rg-1', 'pw-rg-1', 'maple-ridge/rg-2')).toMatch(/Identifier rejected/);
    expect(await as('maple-ridge/rg-1', 'pw-rg-1', 'rg-2-spare')).toMatch(/Identifier rejected/);
    // Time passes and the connected owner is not kicked.
    await sleep(200);
    expect(kicked).toBe(false);
    expect(rg2.client.connected).toBe(true);
    rg2.client.end(true);
  });

  it("by default a device's client id is its own siteId/deviceId, or one it is configured with", async () => {
    expect(await as('maple-ridge/rg-1', 'pw-rg-1', 'mqttjs_1234abcd')).toMatch(/Identifier rejected/);
    const spare = await as('maple-ridge/rg-2', 'pw-rg-2', 'rg-2-spare');
    expect(typeof spare).not.toBe('string');
    if (typeof spare !== 'string') spare.client.end(true);
    // An account that is not a device may not use a device's id either.
    expect(await as('ops', 'pw-ops', 'maple-ridge/rg-1')).toMatch(/Identifier rejected/);
  });

  it("never hands a device's queued messages to another login resuming its session", async () => {
    const away = await as('maple-ridge/rg-2', 'pw-rg-2', 'maple-ridge/rg-2', false);
    if (typeof away === 'string') throw new Error(away);
    await away.client.subscribeAsync('sites/maple-ridge/devices/rg-2/#', { qos: 1 });
    await away.client.endAsync();
    const pub = await as('maple-ridge/rg-2', 'pw-rg-2', 'rg-2-spare');
    if (typeof pub === 'string') throw new Error(pub);
    await pub.client.publishAsync(S('rg-2'), 'online', { qos: 1 });
    await pub.client.endAsync();
    expect(await as('maple-ridge/rg-1', 'pw-rg-1', 'maple-ridge/rg-2', false)).toMatch(/Identifier rejected/);
    // The owner resumes it and gets its message.
    const back = await as('maple-ridge/rg-2', 'pw-rg-2', 'maple-ridge/rg-2', false);
    if (typeof back === 'string') throw new Error(back);
    await waitFor(() => back.got.length > 0, 5_000, 'the queued message');
    expect(back.got).toEqual(['sites/maple-ridge/devices/rg-2/status online']);
    back.client.end(true);
  });

  it("refuses an operators' account resuming another account's session, which holds what it may not read", async () => {
    const ops = await as('ops', 'pw-ops', 'ops-tool', false);
    if (typeof ops === 'string') throw new Error(ops);
    await ops.client.subscribeAsync('sites/+/devices/+/status', { qos: 1 });
    await ops.client.endAsync();
    const dev = await as('maple-ridge/rg-1', 'pw-rg-1', 'maple-ridge/rg-1');
    if (typeof dev === 'string') throw new Error(dev);
    await dev.client.publishAsync(S('rg-1'), 'online', { qos: 1 });
    await dev.client.endAsync();
    // ops-oak may not subscribe to device status; resuming ops' session would have handed it over.
    expect(await as('ops-oak', 'pw-ops-oak', 'ops-tool', false)).toMatch(/Identifier rejected/);
    const back = await as('ops', 'pw-ops', 'ops-tool', false);
    if (typeof back === 'string') throw new Error(back);
    await waitFor(() => back.got.length > 0, 5_000, 'the queued message');
    expect(back.got).toEqual(['sites/maple-ridge/devices/rg-1/status online']);
    back.client.end(true);
    // Once the session ends (a clean login by its owner, then away), the id is free for another login.
    const clean = await as('ops', 'pw-ops', 'ops-tool', true);
    if (typeof clean !== 'string') await clean.client.endAsync();
    // The broker ends the session when it sees the connection close: from then on the other login is let in.
    const other = await waitFor(
      async () => {
        const o = await as('ops-oak', 'pw-ops-oak', 'ops-tool', true);
        return typeof o === 'string' ? undefined : o;
      },
      5_000,
      'the id free for another login',
    );
    other.client.end(true);
  });

  it('forwards to a login, live or queued, only what it may read', () => {
    const config = parseConfig({ ...testConfigInput(), mqtt: { users } });
    const policy = new BrokerPolicy(config.mqtt, buildRegistry(config));
    const oak = { kind: 'user' as const, username: 'ops-oak', subscribe: ['alerts/oak-lane/#'] };
    expect(policy.mayReceive(oak, 'alerts/oak-lane/equipment-remedy')).toBe(true);
    expect(policy.mayReceive(oak, 'alerts/maple-ridge/storm-inspection')).toBe(false);
    const device = { kind: 'device' as const, device: buildRegistry(config).lookup('maple-ridge', 'rg-1')! };
    expect(policy.mayReceive(device, 'sites/maple-ridge/devices/rg-1/status')).toBe(true);
    expect(policy.mayReceive(device, 'sites/maple-ridge/devices/rg-2/status')).toBe(false);
  });
});

describe('login limits', () => {
  it('counts its connections with a login and refuses one over the limit', async () => {
    const input = testConfigInput();
    input.sites![0]!.devices![0]!.clientIds = ['rg-1/*'];
    const gw = await startTestGateway({ ...input, mqtt: { maxConnectionsPerLogin: 2 } });
    try {
      const o = [];
      for (let i = 0; i < 3; i++)
        o.push(
          await login(gw.mqttUrl, {
            clientId: `rg-1/${i}`,
            username: 'maple-ridge/rg-1',
            password: 'pw-rg-1',
          }),
        );
      expect(o.map((x) => (x.client ? 'ok' : x.refused))).toEqual([
        'ok',
        'ok',
        'Connection refused: Server unavailable',
      ]);
      for (const x of o) x.client?.end(true);
    } finally {
      await gw.cleanup();
    }
  });
});
