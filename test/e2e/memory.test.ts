/**
 * One device, or a client that never logs in, cannot exhaust the gateway process: packets are bounded
 * before they are buffered and before login, CONNECT has a deadline, a login's connections and
 * persistent sessions are bounded, and so is what waits for a session while it is away. The process runs
 * as `npm start` runs it (128 MB heap), and its resident memory is read from /proc.
 */
import { connect as tcp } from 'node:net';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayChild, startGatewayChild } from '../helpers/child.ts';
import { waitFor } from '../helpers/env.ts';
import {
  device,
  faultConfig,
  fixedHeader,
  login,
  metrics,
  metricValue,
  S,
  sleep,
} from '../helpers/faults.ts';
import { testHash } from '../helpers/gateway.ts';

/** Peak RSS of the gateway while `work` runs, MB. */
async function peakWhile(gw: GatewayChild, work: Promise<unknown>): Promise<number> {
  let peak = gw.rssMb();
  let done = false;
  void work.finally(() => {
    done = true;
  });
  while (!done) {
    peak = Math.max(peak, gw.rssMb());
    // The sampling interval.
    await sleep(50);
  }
  return Math.max(peak, gw.rssMb());
}

describe('memory stays flat whatever one client sends (gateway process)', () => {
  let gw: GatewayChild;
  beforeAll(async () => {
    gw = await startGatewayChild(
      faultConfig(
        {
          mqtt: {
            loginTimeoutSeconds: 1,
            maxConnectionsPerLogin: 4,
            maxSessionsPerLogin: 3,
            maxQueuedPerSession: 5,
          },
        },
        // A gauge allowed any client id under its own prefix, so the limits are what refuse it.
        ['rg-8', 'rg-9'].map((id) => ({
          id,
          kind: 'rain-gauge',
          inchesPerTip: 0.01,
          passwordHash: testHash(`pw-${id}`),
          clientIds: [`${id}/*`],
        })),
      ),
    );
  });
  afterAll(async () => {
    await gw?.cleanup();
  });

  it('closes at once four raw clients that never logged in and announce a 250 MB PUBLISH, holding no memory', async () => {
    const before = gw.rssMb();
    const t0 = Date.now();
    const closedAfter: number[] = [];
    const sockets = Array.from({ length: 4 }, () => tcp(gw.mqttPort, '127.0.0.1'));
    const work = Promise.all(
      sockets.map(
        (s) =>
          new Promise<void>((resolve) => {
            s.on('error', () => {});
            s.once('close', () => {
              closedAfter.push(Date.now() - t0);
              resolve();
            });
            s.once('connect', () => {
              s.write(fixedHeader(0x30, 250 * 1024 * 1024));
              const zeros = Buffer.alloc(64 * 1024);
              const pump = () => {
                while (!s.destroyed && Date.now() - t0 < 3000) if (!s.write(zeros)) return;
                s.destroy();
              };
              s.on('drain', pump);
              pump();
            });
          }),
      ),
    );
    const peak = await peakWhile(gw, work);
    expect(closedAfter).toHaveLength(4);
    expect(Math.max(...closedAfter)).toBeLessThan(1500);
    expect(peak - before).toBeLessThan(20);
    expect(gw.alive()).toBe(true);
    expect(
      metricValue(await metrics(gw.httpUrl), 'gateway_mqtt_oversize_packets_total'),
    ).toBeGreaterThanOrEqual(4);
  });

  it('closes a 150 MB publish to a device status topic from its header, the same limit as telemetry', async () => {
    const c = await device(gw.mqttUrl, 'rg-1');
    const before = gw.rssMb();
    const closed = new Promise<void>((r) => c.once('close', () => r()));
    c.publish(S('rg-1'), Buffer.alloc(150 * 1024 * 1024, 0x61), { qos: 1 });
    const peak = await peakWhile(gw, closed);
    c.end(true);
    expect(peak - before).toBeLessThan(20);
    expect(gw.alive()).toBe(true);
  });

  it('closes a client that never sends CONNECT at the login deadline', async () => {
    const s = tcp(gw.mqttPort, '127.0.0.1');
    s.on('error', () => {});
    const t0 = Date.now();
    await new Promise((r) => s.once('close', r));
    const ms = Date.now() - t0;
    expect(ms).toBeGreaterThanOrEqual(800);
    expect(ms).toBeLessThan(3000);
  });

  it('refuses connections with one device credentials beyond mqtt.maxConnectionsPerLogin, and sessions beyond maxSessionsPerLogin', async () => {
    const before = gw.rssMb();
    const opts = (i: number, clean: boolean) => ({
      clientId: `rg-9/${i}`,
      username: 'maple-ridge/rg-9',
      password: 'pw-rg-9',
      clean,
    });
    const outcomes = [];
    for (let i = 0; i < 10; i++) outcomes.push(await login(gw.mqttUrl, opts(i, true)));
    const accepted = outcomes.filter((o) => o.client);
    expect(accepted).toHaveLength(4);
    expect(outcomes.filter((o) => o.refused).every((o) => /Server unavailable/.test(o.refused!))).toBe(true);
    // Until the broker has seen every connection close (no client connected).
    const allClosed = () =>
      waitFor(
        async () => /^gateway_mqtt_clients 0$/m.test(await metrics(gw.httpUrl)),
        5_000,
        'the broker to see the connections close',
      );
    for (const o of accepted) o.client!.end(true);
    await allClosed();
    // Persistent sessions outlive their connections: three may be kept, a fourth is refused.
    const sessions = [];
    for (let i = 0; i < 5; i++) {
      const o = await login(gw.mqttUrl, opts(100 + i, false));
      sessions.push(o);
      o.client?.end(true);
      await allClosed();
    }
    expect(sessions.filter((o) => o.client)).toHaveLength(3);
    expect(gw.rssMb() - before).toBeLessThan(20);
  });

  it('queues at most mqtt.maxQueuedPerSession messages for a session that is away', async () => {
    const as = (clientId: string, clean: boolean) =>
      login(gw.mqttUrl, { clientId, username: 'maple-ridge/rg-8', password: 'pw-rg-8', clean });
    const away = (await as('rg-8/session', false)).client!;
    await away.subscribeAsync('sites/maple-ridge/devices/rg-8/#', { qos: 1 });
    await away.endAsync();
    // Ten messages for it while it is away, from the gauge's other connection.
    const pub = (await as('rg-8/publisher', true)).client!;
    for (let i = 0; i < 10; i++) await pub.publishAsync(S('rg-8'), 'online', { qos: 1 });
    await pub.endAsync();
    const got: string[] = [];
    // Queued messages come right after the CONNACK: listen from the first packet on.
    const back = mqtt.connect(gw.mqttUrl, {
      clientId: 'rg-8/session',
      username: 'maple-ridge/rg-8',
      password: 'pw-rg-8',
      clean: false,
      reconnectPeriod: 0,
    });
    back.on('message', (t) => got.push(t));
    await new Promise((r) => back.once('connect', r));
    await waitFor(() => got.length >= 5, 10_000, 'the five queued messages');
    back.end(true);
    expect(got).toHaveLength(5);
    expect(metricValue(await metrics(gw.httpUrl), 'gateway_mqtt_offline_dropped_total')).toBe(5);
  });
});
