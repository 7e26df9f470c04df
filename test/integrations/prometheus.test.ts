/**
 * Device health in /metrics: the per-device gauges and the open duties by site and rule, their bounded
 * cardinality (the cap, a retired device's series gone), and the exposition passing `promtool check
 * metrics` as the gateway serves it.
 */
import { execFileSync } from 'node:child_process';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceMetrics } from '../../gateway/src/deviceMetrics.ts';
import { Registry } from '../../gateway/src/metrics.ts';
import type { DeviceStateRow } from '../../gateway/src/store/readings.ts';
import { haveBinary, waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const state = (
  siteId: string,
  deviceId: string,
  lastReceivedAt: number,
  battery?: number,
): DeviceStateRow => ({
  siteId,
  deviceId,
  lastTs: lastReceivedAt,
  lastReceivedAt,
  status: 'online',
  statusAt: null,
  latest: battery === undefined ? {} : { batteryV: { value: battery, ts: lastReceivedAt } },
});

/** The series of one metric in an exposition: labels text -> value. */
function series(text: string, name: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = new RegExp(`^${name}(\\{[^}]*\\})? (\\S+)$`).exec(line);
    if (m) out.set(m[1] ?? '', Number(m[2]));
  }
  return out;
}

describe('deviceMetrics', () => {
  it('caps the per-device series, counts what it left out, and drops a device no longer registered', () => {
    const devices = [
      { siteId: 'b', deviceId: 'x' },
      { siteId: 'a', deviceId: 'z' },
      { siteId: 'a', deviceId: 'y' },
    ];
    const reg = new Registry();
    deviceMetrics(
      reg,
      {
        registry: { all: () => devices as never },
        deviceState: (s, d) => state(s, d, 1_000, 3.6),
        openDuties: () => [
          { siteId: 'a', rule: 'storm-inspection', overdue: false },
          { siteId: 'a', rule: 'storm-inspection', overdue: false },
          { siteId: 'a', rule: 'storm-inspection', overdue: true },
        ],
        now: () => 11_000,
      },
      2,
    );
    let text = reg.render();
    // In site and device order: a/y and a/z get series, b/x does not.
    expect([...series(text, 'gateway_device_battery_volts').keys()]).toEqual([
      '{device="y",site="a"}',
      '{device="z",site="a"}',
    ]);
    expect(series(text, 'gateway_device_last_reading_age_seconds').get('{device="y",site="a"}')).toBe(10);
    expect(series(text, 'gateway_device_series_omitted').get('')).toBe(1);
    expect(series(text, 'gateway_duties_open')).toEqual(
      new Map([
        ['{overdue="false",rule="storm-inspection",site="a"}', 2],
        ['{overdue="true",rule="storm-inspection",site="a"}', 1],
      ]),
    );
    devices.splice(1, 1); // a/z retired
    text = reg.render();
    expect([...series(text, 'gateway_device_battery_volts').keys()]).toEqual([
      '{device="y",site="a"}',
      '{device="x",site="b"}',
    ]);
    expect(series(text, 'gateway_device_series_omitted').get('')).toBe(0);
  });
});

describe('/metrics of a real gateway', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ mqtt: { allowAnonymous: true } });
  });
  afterAll(async () => gw?.cleanup());

  const scrape = async () => (await fetch(`${gw.httpUrl}/metrics`)).text();

  it('has each device heard from with its age, battery and signal, and the open duties', async () => {
    const c = await mqtt.connectAsync(gw.mqttUrl, { reconnectPeriod: 0 });
    const now = Date.now();
    await c.publishAsync(
      'sites/maple-ridge/devices/rg-1/telemetry',
      JSON.stringify({ ts: now - 180_000, rainTips: 10, batteryV: 3.9, rssi: -80 }),
      { qos: 1 },
    );
    await c.publishAsync(
      'sites/maple-ridge/devices/rg-1/telemetry',
      JSON.stringify({ ts: now - 60_000, rainTips: 70, batteryV: 3.7, rssi: -75 }),
      { qos: 1 },
    );
    await c.endAsync();
    const rg = '{device="rg-1",site="maple-ridge"}';
    const text = await waitFor(
      async () => {
        const t = await scrape();
        return series(t, 'gateway_duties_open').has(
          '{overdue="false",rule="storm-inspection",site="maple-ridge"}',
        )
          ? t
          : undefined;
      },
      30_000,
      'the storm duty in /metrics',
    );
    expect(series(text, 'gateway_device_battery_volts').get(rg)).toBe(3.7);
    expect(series(text, 'gateway_device_rssi_dbm').get(rg)).toBe(-75);
    const age = series(text, 'gateway_device_last_reading_age_seconds').get(rg)!;
    expect(age).toBeGreaterThanOrEqual(0);
    expect(age).toBeLessThan(600);
    // A device never heard from has no series.
    expect(
      series(text, 'gateway_device_last_reading_age_seconds').has('{device="rg-2",site="maple-ridge"}'),
    ).toBe(false);
  });

  it.runIf(haveBinary('promtool'))('passes promtool check metrics', async () => {
    const text = await scrape();
    expect(text).toContain('gateway_device_battery_volts{');
    // promtool exits non-zero on a format error or a lint problem, printing them.
    const out = execFileSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(out.trim()).toBe('');
  });
});
