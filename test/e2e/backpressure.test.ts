/**
 * Never acknowledge and drop, against the gateway process (`npm start`-style) and real clients: a device
 * over its rate is slowed down, every acknowledged message stored; what is refused at QoS 1 gets no PUBACK
 * and a closed connection; QoS 0 over the rate is dropped and counted; a permanently invalid QoS 1 message
 * is recorded and acknowledged, so it does not stop the device's next ones.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayChild, startGatewayChild } from '../helpers/child.ts';
import { haveBinary, waitFor } from '../helpers/env.ts';
import { device, faultConfig, metrics, metricValue, publishOutcome, T } from '../helpers/faults.ts';
import { mosquittoProgram } from '../helpers/mosquitto.ts';

const count = (gw: GatewayChild, where: string) => {
  const db = new Database(join(gw.dataDir, 'gateway.db'), { readonly: true });
  try {
    return (db.prepare(`SELECT COUNT(*) AS n FROM readings WHERE ${where}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
};

describe('backpressure instead of drops (gateway process)', () => {
  let gw: GatewayChild;
  beforeAll(async () => {
    // 400 a second after a burst of 100 (below what mosquitto_pub sends even on a loaded machine): 5,000
    // buffered readings take about 12 s, held back, none lost.
    gw = await startGatewayChild(faultConfig({ ingest: { deviceRatePerSec: 400, deviceBurst: 100 } }));
  });
  afterAll(async () => {
    await gw?.cleanup();
  });

  it.runIf(haveBinary('mosquitto_pub'))(
    'stores all 5,000 lines a gauge flushes with mosquitto_pub -q 1 -l, each PUBACK after its commit',
    async () => {
      const t0 = Date.now() - 5000 * 60_000;
      const lines = Array.from({ length: 5000 }, (_, i) =>
        JSON.stringify({ seq: i + 1, ts: t0 + i * 60_000, rainTips: i + 1 }),
      );
      const pub = spawn(mosquittoProgram('mosquitto_pub')!, [
        ...['-h', '127.0.0.1', '-p', String(gw.mqttPort), '-i', 'maple-ridge/rg-1'],
        ...['-u', 'maple-ridge/rg-1', '-P', 'pw-rg-1', '-q', '1', '-t', T('rg-1'), '-l', '-d'],
      ]);
      let out = '';
      pub.stdout.on('data', (d) => {
        out += d;
      });
      pub.stderr.on('data', (d) => {
        out += d;
      });
      pub.stdin.end(`${lines.join('\n')}\n`);
      const started = Date.now();
      const code = await new Promise<number | null>((r) => pub.once('exit', r));
      const seconds = (Date.now() - started) / 1000;
      expect(code).toBe(0);
      expect((out.match(/received PUBACK/g) ?? []).length).toBe(5000);
      expect(count(gw, "device_id = 'rg-1'")).toBe(5000);
      // Slowed down to the rate: at least about (5000 - 100) / 400 s.
      expect(seconds).toBeGreaterThan(11);
      const m = await metrics(gw.httpUrl);
      expect(metricValue(m, 'gateway_rejections_total', 'reason="rate_limited"')).toBe(0);
      expect(metricValue(m, 'gateway_rate_paced_total')).toBeGreaterThan(0);
    },
    60_000,
  );

  it('keeps a reading ahead of the clock in the quarantine and acknowledges it; refuses one outside its topics', async () => {
    const c = await device(gw.mqttUrl, 'rg-2');
    // Ahead of the gateway's clock: kept out of the readings in the quarantine, then acknowledged, so the
    // device's next readings flow.
    const future = JSON.stringify({ ts: Date.now() + 3_600_000, rainTips: 1 });
    expect(await publishOutcome(c, T('rg-2'), future)).toBe('acknowledged');
    c.end(true);
    const c2 = await device(gw.mqttUrl, 'rg-2');
    // Outside its own topics: not authorized, refused before acknowledging.
    expect(await publishOutcome(c2, T('rg-3'), JSON.stringify({ rainTips: 1 }))).toBe('closed');
    expect(count(gw, "device_id IN ('rg-2', 'rg-3')")).toBe(0);
    const m = await metrics(gw.httpUrl);
    expect(metricValue(m, 'gateway_quarantined_total', 'reason="future_timestamp"')).toBe(1);
    expect(metricValue(m, 'gateway_refused_total', 'reason="future_timestamp"')).toBe(0);
    expect(metricValue(m, 'gateway_mqtt_refused_publish_total')).toBe(1);
    const rej = (await (await fetch(`${gw.httpUrl}/api/rejections`)).json()) as Array<{ reason: string }>;
    expect(rej.map((r) => r.reason)).toEqual(expect.arrayContaining(['not_authorized']));
  });

  it('records and acknowledges a permanently invalid QoS 1 message, and the next ones flow', async () => {
    const c = await device(gw.mqttUrl, 'trap-1');
    expect(await publishOutcome(c, T('trap-1'), '{"sedimentIn": not json')).toBe('acknowledged');
    expect(await publishOutcome(c, T('trap-1'), '{"sedimentIn": 2, "colour": "brown"}')).toBe('acknowledged');
    expect(await publishOutcome(c, T('trap-1'), JSON.stringify({ seq: 1, sedimentIn: 2 }))).toBe(
      'acknowledged',
    );
    c.end(true);
    expect(count(gw, "device_id = 'trap-1'")).toBe(1);
    const rej = (await (await fetch(`${gw.httpUrl}/api/rejections?siteId=maple-ridge`)).json()) as Array<{
      reason: string;
      deviceId: string;
    }>;
    expect(
      rej
        .filter((r) => r.deviceId === 'trap-1')
        .map((r) => r.reason)
        .sort(),
    ).toEqual(['malformed_json', 'unknown_field']);
  });
});

describe('QoS 0 over the rate (gateway process)', () => {
  let gw: GatewayChild;
  beforeAll(async () => {
    // 20 a second after a burst of 10: a QoS 0 message waits at most a second for its token.
    gw = await startGatewayChild(faultConfig({ ingest: { deviceRatePerSec: 20, deviceBurst: 10 } }));
  });
  afterAll(async () => {
    await gw?.cleanup();
  });

  it('drops QoS 0 over the rate and counts it in /metrics', async () => {
    const c = await device(gw.mqttUrl, 'rg-3');
    const t0 = Date.now() - 1_000_000;
    const n = 500;
    await Promise.all(
      Array.from(
        { length: n },
        (_, i) =>
          new Promise<void>((r) =>
            c.publish(T('rg-3'), JSON.stringify({ seq: i, ts: t0 + i * 1000, rainTips: i }), { qos: 0 }, () =>
              r(),
            ),
          ),
      ),
    );
    // QoS 0 needs no acknowledgement: wait until every message is accounted for.
    const { stored, dropped } = await waitFor(
      async () => {
        const m = await metrics(gw.httpUrl);
        const seen = {
          dropped: metricValue(m, 'gateway_messages_total', 'result="dropped",transport="mqtt"'),
          stored: count(gw, "device_id = 'rg-3'"),
        };
        return seen.stored + seen.dropped >= n ? seen : undefined;
      },
      15_000,
      `all ${n} messages stored or dropped`,
    );
    c.end(true);
    expect(dropped).toBeGreaterThan(0);
    expect(stored + dropped).toBe(n);
    expect(metricValue(await metrics(gw.httpUrl), 'gateway_rejections_total', 'reason="rate_limited"')).toBe(
      dropped,
    );
  });
});
