/**
 * Device health in /metrics: the per-device gauges and the open duties by site and rule, their bounded
 * cardinality (the cap, a retired device's series gone), and the exposition passing `promtool check
 * metrics` as the gateway serves it.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { deviceMetrics } from '../../gateway/src/deviceMetrics.ts';
import { Registry } from '../../gateway/src/metrics.ts';
import type { DeviceStateRow } from '../../gateway/src/store/readings.ts';
import { haveBinary, waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const ROOT = join(import.meta.dirname, '../..');

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
  it('counts a registered device never heard from as never reported, and no longer once it reports', () => {
    const heard = new Map<string, DeviceStateRow>();
    const reg = new Registry();
    deviceMetrics(reg, {
      registry: { all: () => [{ siteId: 'a', deviceId: 'x' }] as never },
      deviceState: (s, d) => heard.get(`${s}/${d}`),
      openDuties: () => [],
      now: () => 5_000,
    });
    expect(series(reg.render(), 'gateway_device_never_reported').get('{device="x",site="a"}')).toBe(1);
    expect(series(reg.render(), 'gateway_device_last_reading_age_seconds').size).toBe(0);
    heard.set('a/x', state('a', 'x', 1_000));
    expect(series(reg.render(), 'gateway_device_never_reported').get('{device="x",site="a"}')).toBe(0);
    expect(series(reg.render(), 'gateway_device_last_reading_age_seconds').get('{device="x",site="a"}')).toBe(
      4,
    );
  });

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
    expect([...series(text, 'gateway_device_never_reported').values()]).toEqual([0, 0]);
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
    // A device never heard from has no age, and is counted as never reported.
    const rg2 = '{device="rg-2",site="maple-ridge"}';
    expect(series(text, 'gateway_device_last_reading_age_seconds').has(rg2)).toBe(false);
    const never = series(text, 'gateway_device_never_reported');
    expect(never.get(rg2)).toBe(1);
    expect(never.get(rg)).toBe(0);
  });

  it.runIf(haveBinary('promtool'))('passes promtool check metrics', async () => {
    const text = await scrape();
    expect(text).toContain('gateway_device_battery_volts{');
    // promtool exits non-zero on a format error or a lint problem, printing them.
    const out = execFileSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(out.trim()).toBe('');
  });

  it('has every gateway metric the alerting rules of deploy/prometheus/alerts.yml name', async () => {
    const text = await scrape();
    const rules = parse(readFileSync(join(ROOT, 'deploy/prometheus/alerts.yml'), 'utf8')) as {
      groups: Array<{ rules: Array<{ alert: string; expr: string }> }>;
    };
    const named = rules.groups
      .flatMap((g) => g.rules)
      .flatMap((r) => [...r.expr.matchAll(/\bgateway_[a-z_]+/g)].map((m) => m[0]));
    expect(named).toEqual(
      expect.arrayContaining(['gateway_device_never_reported', 'gateway_device_last_reading_age_seconds']),
    );
    for (const name of named) expect(text, name).toMatch(new RegExp(`^# TYPE ${name} `, 'm'));
  });
});

describe.runIf(haveBinary('promtool'))('the alerting rules (deploy/prometheus/alerts.yml)', () => {
  it('pass promtool check rules and their unit tests: a device that never reported raises an alert', () => {
    const dir = join(ROOT, 'deploy/prometheus');
    const check = execFileSync('promtool', ['check', 'rules', 'alerts.yml'], { cwd: dir, encoding: 'utf8' });
    expect(check).toMatch(/SUCCESS: 4 rules found/);
    // promtool exits non-zero when an expected alert does not fire (or one not expected does).
    const test = execFileSync('promtool', ['test', 'rules', 'alerts.test.yml'], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(test).toMatch(/SUCCESS/);
    const tests = readFileSync(join(dir, 'alerts.test.yml'), 'utf8');
    expect(tests).toMatch(/alertname: DeviceNeverReported\n\s+exp_alerts:\n\s+- exp_labels:/);
  });
});
