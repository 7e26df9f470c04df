/**
 * An invalid-message flood from one device is counted in full but stored sampled, the store grows by a
 * bounded amount, and every other device's readings are still stored. The gateway runs as its own process.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayChild, startGatewayChild } from '../helpers/child.ts';
import { waitFor } from '../helpers/env.ts';
import { device, faultConfig, metrics, metricValue, sleep, T } from '../helpers/faults.ts';

const storeBytes = (dir: string) =>
  readdirSync(dir).reduce((n, f) => n + (f.startsWith('gateway.db') ? statSync(join(dir, f)).size : 0), 0);

/** The store's size once it has stopped changing: the same for 300 ms. */
async function settledBytes(dir: string): Promise<number> {
  let last = -1;
  let since = Date.now();
  const settled = await waitFor(
    () => {
      const n = storeBytes(dir);
      if (n !== last) {
        last = n;
        since = Date.now();
      }
      return Date.now() - since >= 300 ? { n } : undefined;
    },
    10_000,
    'the store to stop growing',
  );
  return settled.n;
}

describe('an invalid-message flood (gateway process)', () => {
  let gw: GatewayChild;
  beforeAll(async () => {
    // A high rate: this is about what is stored, not how fast the device may send (backpressure.test.ts).
    gw = await startGatewayChild(
      faultConfig({ ingest: { rejectionSamplePerMinute: 5, deviceRatePerSec: 5000, deviceBurst: 5000 } }),
    );
  });
  afterAll(async () => {
    await gw?.cleanup();
  });

  it('counts every rejection, stores a few a minute with the count of the rest, and others keep being stored', async () => {
    // The store's size once the start-up's own writes are done: the baseline.
    const size0 = await settledBytes(gw.dataDir);
    const flooder = await device(gw.mqttUrl, 'rg-1');
    const other = await device(gw.mqttUrl, 'trap-1');
    const payload = '{"rainTips": not json, "padding": "the flood of one device"}';
    let sent = 0;
    let otherAcked = 0;
    const t0 = Date.now();
    const others = (async () => {
      for (let i = 0; Date.now() - t0 < 4000; i++) {
        await other.publishAsync(T('trap-1'), JSON.stringify({ seq: i, sedimentIn: 2 }), { qos: 1 });
        otherAcked++;
        // The other device's pace: a reading every 50 ms.
        await sleep(50);
      }
    })();
    while (Date.now() - t0 < 4000) {
      await new Promise<void>((r) => flooder.publish(T('rg-1'), payload, { qos: 0 }, () => r()));
      sent++;
    }
    await others;
    // QoS 0: wait until every message sent is counted.
    const counted = await waitFor(
      async () => {
        const n = metricValue(
          await metrics(gw.httpUrl),
          'gateway_rejections_total',
          'reason="malformed_json"',
        );
        return n >= sent ? n : undefined;
      },
      30_000,
      `all ${sent} rejections counted`,
    );
    flooder.end(true);
    other.end(true);
    expect(sent).toBeGreaterThan(10_000);
    expect(counted).toBe(sent);
    const db = new Database(join(gw.dataDir, 'gateway.db'), { readonly: true });
    const rows = db
      .prepare("SELECT count(*) AS n, sum(suppressed) AS s FROM rejections WHERE device_id = 'rg-1'")
      .get() as {
      n: number;
      s: number;
    };
    const trap = (
      db.prepare("SELECT count(*) AS n FROM readings WHERE device_id = 'trap-1'").get() as { n: number }
    ).n;
    db.close();
    // The flood spans at most two minutes: at most 5 rows each, and they account for every rejection.
    expect(rows.n).toBeLessThanOrEqual(10);
    expect(rows.n + rows.s).toBe(sent);
    expect(trap).toBe(otherAcked);
    // The store grows by its commits' write-ahead log (bounded by its checkpoints), not a row per message.
    expect((storeBytes(gw.dataDir) - size0) / 1048576).toBeLessThan(8);
    const api = (await (await fetch(`${gw.httpUrl}/api/rejections?reason=malformed_json`)).json()) as Array<{
      suppressed: number;
    }>;
    expect(api.reduce((n, r) => n + 1 + r.suppressed, 0)).toBe(sent);
  });
});
