/**
 * Absurd data against the gateway process: a rain counter jump beyond what a gauge can count is rejected
 * with its reason and raises nothing; an upload stamped decades ahead stores none of its future rows and
 * opens no duty; and a large import leaves the API answering (health polled throughout).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayChild, startGatewayChild } from '../helpers/child.ts';
import { RAIN_DIR } from '../helpers/env.ts';
import { device, faultConfig, metrics, metricValue, publishOutcome, sleep, T } from '../helpers/faults.ts';

const TOKEN = 'absurd-engineer-token';

/**
 * How long the gateway's event loop may be held at once during an import: its own measure
 * (`nodejs_eventloop_delay_seconds{percentile="max"}`, sampled every 10 ms inside the process, reset by
 * each scrape). The aim is 100 ms (measured: about 60 ms on the project's 2-core machine); the suite
 * shares that machine with other servers, so 250 ms is asserted. Before imports gave the event loop back,
 * the import held it whole (7.7 s for this file).
 */
const HEALTH_BOUND_MS = 250;
/**
 * The slowest /api/health answer seen from the test's own process. It also counts the time the machine
 * did not run either process (two test workers, their gateways and browsers on 2 cores: 321 ms was seen
 * once with the gateway's own loop far under its bound), so it is bounded loosely: an import that held
 * the loop would take seconds.
 */
const ROUND_TRIP_BOUND_MS = 2_000;

describe('absurd data (gateway process)', () => {
  let gw: GatewayChild;
  beforeAll(async () => {
    gw = await startGatewayChild(
      faultConfig({
        auth: {
          tokens: [
            { name: 'PE', role: 'engineer', tokenSha256: createHash('sha256').update(TOKEN).digest('hex') },
          ],
        },
      }),
    );
  });
  afterAll(async () => {
    await gw?.cleanup();
  });
  const alerts = async () =>
    (await (await fetch(`${gw.httpUrl}/api/alerts`)).json()) as Array<{
      rule: string;
      dueAt: string;
      deviceId?: string;
    }>;
  const importFile = (deviceId: string, body: string) =>
    fetch(`${gw.httpUrl}/api/import?siteId=maple-ridge&deviceId=${deviceId}&utcOffsetMinutes=0`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'text/plain' },
      body,
    });

  it('rejects a cumulative counter jump of 324,383 in in 0.7 s, with its reason, and raises no storm', async () => {
    const c = await device(gw.mqttUrl, 'rg-1');
    const ts = Date.now() - 60_000;
    expect(await publishOutcome(c, T('rg-1'), JSON.stringify({ ts, seq: 1, rainTips: 100 }))).toBe(
      'acknowledged',
    );
    // Permanently absurd: rejected, recorded and acknowledged so the gauge's next readings flow.
    const jump = JSON.stringify({ ts: ts + 700, seq: 2, rainTips: 100 + 32_438_300 });
    expect(await publishOutcome(c, T('rg-1'), jump)).toBe('acknowledged');
    expect(
      await publishOutcome(c, T('rg-1'), JSON.stringify({ ts: ts + 30_000, seq: 3, rainTips: 101 })),
    ).toBe('acknowledged');
    c.end(true);
    const rej = (await (
      await fetch(`${gw.httpUrl}/api/rejections?reason=implausible_rate`)
    ).json()) as Array<{
      detail: string;
    }>;
    expect(rej[0]!.detail).toMatch(/rainTips rose by 32438300 tips in 0.7 s/);
    expect((await alerts()).filter((a) => a.rule === 'storm-inspection')).toHaveLength(0);
  });

  it('stores no row of an upload stamped into 2062 that lies ahead of the clock, and opens no duty for it', async () => {
    const start = Date.now() - 3 * 3_600_000;
    const fmt = (t: number) => new Date(t).toISOString().slice(0, 19).replace('T', ' ');
    const rows = 20_000;
    const step = Math.round((Date.parse('2062-06-01T00:00:00Z') - start) / rows);
    const lines = [
      '"TOA5","Test","CR6","1","CR6.Std.06.01","CPU:TEST.CR6","1","Table3"',
      '"TIMESTAMP","RECORD","ID_5","RainEvent","Rain_mm_Tot"',
      '"TS","RN","","","inch"',
      '"","","Smp","Smp","Tot"',
    ];
    for (let i = 0; i < rows; i++) lines.push(`"${fmt(start + i * step)}",${i + 1},5,302,0.01`);
    const res = await importFile('rg-2', `${lines.join('\r\n')}\r\n`);
    expect(res.status).toBe(200);
    const summary = (await res.json()) as {
      stored: number;
      rejected: number;
      rejectedByReason: Record<string, number>;
    };
    expect(summary.rejectedByReason.future_timestamp).toBeGreaterThan(rows - 10);
    expect(summary.stored + summary.rejected).toBe(rows + 1);
    const telemetry = (await (
      await fetch(
        `${gw.httpUrl}/api/telemetry?siteId=maple-ridge&deviceId=rg-2&from=0&to=2100-01-01T00:00:00Z`,
      )
    ).json()) as { readings: Array<{ ts: string }> };
    for (const r of telemetry.readings) expect(Date.parse(r.ts)).toBeLessThanOrEqual(Date.now() + 300_000);
    expect((await alerts()).filter((a) => Date.parse(a.dueAt) > Date.now() + 86_400_000 * 30)).toHaveLength(
      0,
    );
  });

  it(`answers /api/health within ${HEALTH_BOUND_MS} ms throughout a large import (the 5-month HOBO record)`, async () => {
    const body = readFileSync(`${RAIN_DIR}/hobo_quincemil_2017.csv`, 'utf8');
    const auth = { authorization: `Bearer ${TOKEN}` };
    await metrics(gw.httpUrl, auth); // the loop's delay is measured from here
    let done = false;
    const latencies: number[] = [];
    const poll = (async () => {
      while (!done) {
        const t = performance.now();
        await (await fetch(`${gw.httpUrl}/api/health`)).arrayBuffer();
        latencies.push(performance.now() - t);
        // The sampling interval.
        await sleep(20);
      }
    })();
    const res = await importFile('rg-3', body);
    done = true;
    await poll;
    expect(res.status).toBe(200);
    expect(((await res.json()) as { stored: number }).stored).toBe(13_907);
    const heldMs =
      metricValue(await metrics(gw.httpUrl, auth), 'nodejs_eventloop_delay_seconds', 'percentile="max"') *
      1000;
    // Health was answered throughout, and the gateway's loop was never held longer than the bound.
    expect(latencies.length).toBeGreaterThan(20);
    expect(heldMs).toBeGreaterThan(0);
    expect(heldMs).toBeLessThan(HEALTH_BOUND_MS);
    expect(Math.max(...latencies)).toBeLessThan(ROUND_TRIP_BOUND_MS);
  }, 60_000);
});
