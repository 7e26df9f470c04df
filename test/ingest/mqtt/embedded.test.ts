import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filtersIntersect } from '../../../gateway/src/ingest/mqtt/topicFilters.ts';
import { haveBinary, waitFor } from '../../helpers/env.ts';
import { startTestGateway, type TestGateway, testHash } from '../../helpers/gateway.ts';

const run = promisify(execFile);
const T = (dev: string, site = 'maple-ridge') => `sites/${site}/devices/${dev}/telemetry`;

async function connect(
  gw: TestGateway,
  username?: string,
  password?: string,
  extra: mqtt.IClientOptions = {},
) {
  const c = mqtt.connect(gw.mqttUrl, {
    ...(username ? { username, password } : {}),
    // A device logs in with its own client id (siteId/deviceId).
    ...(username?.includes('/') ? { clientId: username } : {}),
    reconnectPeriod: 0,
    ...extra,
  });
  await new Promise<void>((resolve, reject) => {
    c.once('connect', () => resolve());
    c.once('error', reject);
  });
  return c;
}

function count(gw: TestGateway, where = '1=1'): number {
  const db = new Database(join(gw.dataDir, 'gateway.db'), { readonly: true });
  try {
    return (db.prepare(`SELECT COUNT(*) AS n FROM readings WHERE ${where}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('embedded broker', () => {
  let gw: TestGateway;
  const clients: MqttClient[] = [];
  beforeAll(async () => {
    gw = await startTestGateway({
      ingest: { deviceRatePerSec: 50, deviceBurst: 200 },
      mqtt: {
        users: [
          { username: 'ops', passwordHash: testHash('pw-ops'), subscribe: ['gateway/#', 'alerts/#'] },
          {
            username: 'watcher',
            passwordHash: testHash('pw-watcher'),
            subscribe: ['sites/+/devices/+/telemetry'],
          },
        ],
      },
    });
  });
  afterAll(async () => {
    for (const c of clients) c.end(true);
    await gw?.cleanup();
  });

  it('stores a QoS 1 reading before it acknowledges it', async () => {
    const c = await connect(gw, 'maple-ridge/rg-1', 'pw-rg-1');
    clients.push(c);
    for (let i = 1; i <= 20; i++) {
      await c.publishAsync(T('rg-1'), JSON.stringify({ seq: i, ts: Date.now() - 1000 + i, rainTips: i }), {
        qos: 1,
      });
      // The PUBACK has arrived: the reading must already be committed, read by another connection.
      expect(count(gw, `device_id = 'rg-1' AND seq = ${i}`)).toBe(1);
    }
  });

  it('accepts Debian mosquitto_pub as a device', async () => {
    if (!haveBinary('mosquitto_pub')) return;
    const port = String(gw.mqttPort);
    await run('mosquitto_pub', [
      '-h',
      '127.0.0.1',
      '-p',
      port,
      '-i',
      'maple-ridge/trap-1',
      '-u',
      'maple-ridge/trap-1',
      '-P',
      'pw-trap-1',
      '-q',
      '1',
      '-t',
      T('trap-1'),
      '-m',
      JSON.stringify({ seq: 1, sedimentIn: 6.5 }),
    ]);
    expect(count(gw, `device_id = 'trap-1'`)).toBe(1);
    const res = await fetch(`${gw.httpUrl}/api/sites/maple-ridge`);
    const site = (await res.json()) as {
      devices: Array<{ id: string; latest: Record<string, { value: number }> }>;
    };
    expect(site.devices.find((d) => d.id === 'trap-1')?.latest.sedimentIn?.value).toBe(6.5);
  });

  it('refuses a wrong password and anonymous logins', async () => {
    await expect(connect(gw, 'maple-ridge/rg-1', 'wrong')).rejects.toThrow(/bad user ?name or password/i);
    await expect(connect(gw)).rejects.toThrow(/Not authorized|refused/i);
  });

  it('lets a device publish only under its own topics', async () => {
    const before = count(gw, `device_id = 'rg-2'`);
    const c = await connect(gw, 'maple-ridge/rg-1', 'pw-rg-1');
    const closed = new Promise<void>((r) => c.once('close', () => r()));
    c.publish(T('rg-2'), JSON.stringify({ rainTips: 1 }), { qos: 1 });
    await closed;
    c.end(true);
    expect(count(gw, `device_id = 'rg-2'`)).toBe(before);
    const rej = (await (
      await fetch(`${gw.httpUrl}/api/rejections?reason=not_authorized`)
    ).json()) as unknown[];
    expect(rej.length).toBeGreaterThan(0);
  });

  it('counts duplicate deliveries once (same seq, or same source timestamp)', async () => {
    const c = await connect(gw, 'maple-ridge/rg-2', 'pw-rg-2');
    clients.push(c);
    const ts = Date.now() - 60_000;
    await c.publishAsync(T('rg-2'), JSON.stringify({ seq: 500, ts, rainTips: 10 }), { qos: 1 });
    await c.publishAsync(T('rg-2'), JSON.stringify({ seq: 500, ts, rainTips: 10 }), { qos: 1 });
    await c.publishAsync(T('rg-2'), JSON.stringify({ ts, rainTips: 10 }), { qos: 1 });
    await c.publishAsync(T('rg-2'), JSON.stringify({ seq: 500, rainTips: 10 }), { qos: 1 });
    expect(count(gw, `device_id = 'rg-2'`)).toBe(1);
    const metrics = await (await fetch(`${gw.httpUrl}/metrics`)).text();
    expect(metrics).toMatch(/gateway_messages_total\{result="duplicate",transport="mqtt"\} 3/);
  });

  it('rejects bad messages with a reason and keeps the rest flowing', async () => {
    const c = await connect(gw, 'oak-lane/panel-1', 'pw-panel-1');
    clients.push(c);
    const bad = ['{not json', '{"levelIn":"high"}', '{"levelIn":99}', '{"levelIn":3,"extra":1}'];
    for (const b of bad) await c.publishAsync(T('panel-1', 'oak-lane'), b, { qos: 1 });
    await c.publishAsync(T('panel-1', 'oak-lane'), '{"levelIn":30,"seq":1}', { qos: 1 });
    // A time ahead of the gateway's clock: kept in the quarantine, then acknowledged; the next reading flows on.
    await c.publishAsync(T('panel-1', 'oak-lane'), `{"ts":"2099-01-01T00:00:00Z","levelIn":3}`, { qos: 1 });
    await c.publishAsync(T('panel-1', 'oak-lane'), '{"levelIn":31,"seq":2}', { qos: 1 });
    expect(count(gw, `device_id = 'panel-1'`)).toBe(2);
    const metrics = await (await fetch(`${gw.httpUrl}/metrics`)).text();
    for (const reason of ['malformed_json', 'wrong_type', 'out_of_range', 'unknown_field'])
      expect(metrics).toContain(`gateway_rejections_total{reason="${reason}"}`);
    expect(metrics).toContain('gateway_quarantined_total{reason="future_timestamp"} 1');
    const rej = (await (await fetch(`${gw.httpUrl}/api/rejections?siteId=oak-lane`)).json()) as Array<{
      reason: string;
      detail: string;
    }>;
    expect(rej.map((r) => r.reason).sort()).toEqual(
      ['malformed_json', 'out_of_range', 'unknown_field', 'wrong_type'].sort(),
    );
    const q = (await (await fetch(`${gw.httpUrl}/api/quarantine?siteId=oak-lane`)).json()) as {
      items: Array<{ deviceId: string; reason: string }>;
    };
    expect(q.items).toEqual([expect.objectContaining({ deviceId: 'panel-1', reason: 'future_timestamp' })]);
  });

  it('a flood from one device is slowed down to its rate, nothing of it dropped, and does not starve the others', async () => {
    const flooder = await connect(gw, 'maple-ridge/trap-1', 'pw-trap-1');
    const other = await connect(gw, 'maple-ridge/rg-1', 'pw-rg-1');
    clients.push(flooder, other);
    const before = count(gw, `device_id = 'trap-1'`);
    const start = Date.now() - 3_600_000;
    const n = 400;
    const t0 = Date.now();
    const flood = Array.from({ length: n }, (_, i) =>
      flooder.publishAsync(T('trap-1'), JSON.stringify({ ts: start + i, sedimentIn: 1 }), { qos: 1 }),
    );
    for (let i = 0; i < 20; i++)
      await other.publishAsync(T('rg-1'), JSON.stringify({ seq: 1000 + i, rainTips: 21 + i }), { qos: 1 });
    const otherMs = Date.now() - t0;
    await Promise.all(flood);
    const floodMs = Date.now() - t0;
    // Every acknowledged message is stored; the 200 over the burst of 200 waited for 50 a second.
    expect(count(gw, `device_id = 'trap-1'`) - before).toBe(n);
    expect(floodMs).toBeGreaterThanOrEqual(((n - 200) / 50) * 1000 * 0.8);
    expect(count(gw, `device_id = 'rg-1' AND seq >= 1000`)).toBe(20);
    expect(otherMs).toBeLessThan(3000);
    const metrics = await (await fetch(`${gw.httpUrl}/metrics`)).text();
    expect(metrics).not.toMatch(/gateway_rejections_total\{reason="rate_limited"\}/);
    expect(Number(/gateway_rate_paced_total (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(150);
  });

  it('tracks device status (retained, last will) and announces the gateway', async () => {
    const dev = await connect(gw, 'oak-lane/panel-1', 'pw-panel-1', {
      will: {
        topic: 'sites/oak-lane/devices/panel-1/status',
        payload: Buffer.from('offline'),
        qos: 1,
        retain: true,
      },
    });
    await dev.publishAsync('sites/oak-lane/devices/panel-1/status', 'online', { qos: 1, retain: true });
    const site = async () =>
      (
        (await (await fetch(`${gw.httpUrl}/api/sites/oak-lane`)).json()) as {
          devices: Array<{ status: string }>;
        }
      ).devices[0]!.status;
    await waitFor(async () => (await site()) === 'online', 5000, 'online');
    dev.stream.destroy();
    await waitFor(async () => (await site()) === 'offline', 10_000, 'offline by last will');
    dev.end(true);
  });

  it('announces the gateway, retained, to accounts allowed to watch it, and no further', async () => {
    const ops = await connect(gw, 'ops', 'pw-ops');
    clients.push(ops);
    const got = new Promise<string>((resolve) =>
      ops.on(
        'message',
        (topic, payload) => topic === 'gateway/test-gw/status' && resolve(payload.toString()),
      ),
    );
    const granted = await ops.subscribeAsync('gateway/#', { qos: 1 });
    expect(granted[0]!.qos).toBe(1);
    expect(JSON.parse(await got)).toMatchObject({ status: 'online' });
    await expect(ops.subscribeAsync('sites/#', { qos: 1 })).rejects.toThrow(/Subscribe error/);
  });

  it('routes telemetry to a subscriber once someone watches it', async () => {
    const watcher = await connect(gw, 'watcher', 'pw-watcher');
    clients.push(watcher);
    const got = new Promise<string>((resolve) => watcher.on('message', (_t, p) => resolve(p.toString())));
    await watcher.subscribeAsync('sites/+/devices/+/telemetry', { qos: 1 });
    const dev = await connect(gw, 'maple-ridge/rg-2', 'pw-rg-2');
    clients.push(dev);
    const payload = JSON.stringify({ seq: 7777, rainTips: 1 });
    await dev.publishAsync(T('rg-2'), payload, { qos: 1 });
    expect(await got).toBe(payload);
  });
});

describe('topic filters', () => {
  it('tell whether two filters can match one topic', () => {
    const t = 'sites/+/devices/+/telemetry';
    for (const f of [
      '#',
      'sites/#',
      'sites/a/devices/b/telemetry',
      'sites/+/devices/+/+',
      '+/+/+/+/telemetry',
      'sites/a/#',
    ])
      expect(filtersIntersect(f, t), f).toBe(true);
    for (const f of [
      'alerts/#',
      'gateway/#',
      'sites/a/devices/b/status',
      'sites/+/devices',
      'sites/a/devices/b/telemetry/x',
    ])
      expect(filtersIntersect(f, t), f).toBe(false);
  });
});
