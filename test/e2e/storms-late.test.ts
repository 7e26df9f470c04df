import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway, testConfigInput } from '../helpers/gateway.ts';

type Storm = { start: string; tips: number; qualified: boolean };
type Alert = { rule: string; status: string; raisedAt: string };

describe('late data through the gateway: two storms that a backlog shows were one', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    // Storms that out-of-order data made raise their alerts once it settled: here after 3 s.
    const sites = testConfigInput().sites!.map((site) =>
      site.id === 'maple-ridge' ? { ...site, storm: { settleMinutes: 0.05 } } : site,
    );
    gw = await startTestGateway({ sites });
  });
  afterAll(async () => gw?.cleanup());

  it('lists the merged storm once, and raises its inspection alert', async () => {
    const c = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
    });
    const t0 = Date.parse('2026-11-20T06:00:00Z');
    const M = 60_000;
    const send = (ts: number, count: number) =>
      c.publishAsync('sites/maple-ridge/devices/rg-1/telemetry', JSON.stringify({ ts, rainTips: count }), {
        qos: 1,
      });
    // Live: 20 tips in the first hour, then nothing for 7 h, then 20 tips: two storms of 0.20 in.
    await send(t0, 0);
    for (let i = 1; i <= 20; i++) await send(t0 + i * 3 * M, i);
    for (let i = 1; i <= 20; i++) await send(t0 + 8 * 60 * M + i * 3 * M, 20 + 15 + i);
    const before = (await (
      await fetch(`${gw.httpUrl}/api/storms?siteId=maple-ridge&from=2026-11-01T00:00:00Z`)
    ).json()) as Storm[];
    // Newest first.
    expect(before.map((s) => s.tips)).toEqual([35, 20]);
    // A backlog arrives late: the counter readings from the "dry" hours show 15 tips at +4 h.
    for (let i = 1; i <= 15; i++) await send(t0 + 4 * 60 * M + i * M, 20 + i);
    await c.endAsync();
    const after = (await (
      await fetch(`${gw.httpUrl}/api/storms?siteId=maple-ridge&from=2026-11-01T00:00:00Z`)
    ).json()) as Storm[];
    expect(after, JSON.stringify(after)).toHaveLength(1);
    expect(after[0]).toMatchObject({ tips: 55, qualified: true, start: new Date(t0 + 3 * M).toISOString() });
    let alerts: Alert[] = [];
    await waitFor(
      async () => {
        alerts = (await (
          await fetch(`${gw.httpUrl}/api/alerts?siteId=maple-ridge&rule=storm-inspection&status=open`)
        ).json()) as Alert[];
        return alerts.length > 0;
      },
      15_000,
      'the merged storm alert, once the late data settled',
    );
    expect(alerts).toHaveLength(1);
  });
});
