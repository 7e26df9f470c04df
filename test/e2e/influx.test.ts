import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveBinary, waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { type InfluxdServer, startInfluxd } from '../helpers/influxd.ts';
import { startVictoria, type VictoriaServer } from '../helpers/victoria.ts';

describe.runIf(haveBinary('influxd'))('gateway to InfluxDB 1.x (influxd 1.6.7)', () => {
  let influx: InfluxdServer;
  let gw: TestGateway;
  beforeAll(async () => {
    influx = await startInfluxd({ db: 'site' });
    gw = await startTestGateway({ influx: { url: influx.url, db: 'site', flushIntervalMs: 100 } });
  });
  afterAll(async () => {
    await gw?.cleanup();
    await influx?.stop();
  });

  it('writes MQTT readings to measurement telemetry, tagged, at the source timestamp', async () => {
    const c = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
    });
    const ts = Date.parse('2026-05-01T10:00:00.123Z');
    for (let i = 0; i < 50; i++)
      await c.publishAsync(
        'sites/maple-ridge/devices/rg-1/telemetry',
        JSON.stringify({ ts: ts + i * 60_000, seq: i, rainTips: i }),
        { qos: 1 },
      );
    await c.endAsync();
    const rows = await waitFor(
      async () => {
        const r = await influx.select("SELECT * FROM telemetry WHERE device = 'rg-1'", 'site');
        return r.length === 50 ? r : undefined;
      },
      15_000,
      '50 points in InfluxDB',
    );
    expect(rows[0]).toMatchObject({
      time: ts,
      site: 'maple-ridge',
      device: 'rg-1',
      kind: 'rain-gauge',
      rainTips: 0,
    });
    expect(rows[49]).toMatchObject({ time: ts + 49 * 60_000, rainTips: 49 });
    const health = (await (await fetch(`${gw.httpUrl}/api/health`)).json()) as {
      components: Array<{ name: string; ok: boolean }>;
    };
    expect(health.components.find((x) => x.name === 'influxdb')?.ok).toBe(true);
  });

  it('lists a reading InfluxDB refused for good at /api/influx/dead-letters, with the server reason', async () => {
    // The same field as a string in the same shard: InfluxDB 1.x refuses the gateway's float for good.
    const ts = Date.parse('2026-07-01T10:00:00Z');
    const res = await fetch(`${influx.url}/write?db=site&precision=ms`, {
      method: 'POST',
      body: `telemetry,device=rg-2,kind=rain-gauge,site=maple-ridge rainTips="lots" ${ts}`,
    });
    expect(res.status).toBe(204);
    const c = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'maple-ridge/rg-2',
      username: 'maple-ridge/rg-2',
      password: 'pw-rg-2',
    });
    await c.publishAsync(
      'sites/maple-ridge/devices/rg-2/telemetry',
      JSON.stringify({ ts: ts + 60_000, seq: 1, rainTips: 3 }),
      { qos: 1 },
    );
    await c.endAsync();
    type Dead = { source: string; line: string | null; reason: string | null };
    const dead = await waitFor(
      async () => {
        const list = (await (await fetch(`${gw.httpUrl}/api/influx/dead-letters`)).json()) as Dead[];
        return list.length > 0 ? list : undefined;
      },
      15_000,
      'a dead letter listed',
    );
    expect(dead).toHaveLength(1);
    expect(dead[0]!.source).toBe('readings');
    expect(dead[0]!.line).toContain('device=rg-2');
    expect(dead[0]!.reason).toMatch(/field type conflict/);
  });
});

describe.runIf(haveBinary('influxd'))('the InfluxDB position across restarts', () => {
  let influx: InfluxdServer;
  let dataDir: string;
  beforeAll(async () => {
    influx = await startInfluxd({ db: 'hist' });
    dataDir = mkdtempSync(join(tmpdir(), 'gw-hist-'));
  });
  afterAll(async () => {
    await influx?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const publish = async (gw: TestGateway, from: number, n: number) => {
    const c = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'oak-lane/panel-1',
      username: 'oak-lane/panel-1',
      password: 'pw-panel-1',
    });
    for (let i = from; i < from + n; i++)
      await c.publishAsync(
        'sites/oak-lane/devices/panel-1/telemetry',
        JSON.stringify({ ts: Date.parse('2026-05-03T00:00:00Z') + i * 60_000, seq: i, levelIn: 12 }),
        { qos: 1 },
      );
    await c.endAsync();
  };
  const inInflux = async () =>
    Number(
      (await influx.select("SELECT count(levelIn) FROM telemetry WHERE device = 'panel-1'", 'hist'))[0]
        ?.count ?? 0,
    );
  const written = async (gw: TestGateway) =>
    Number(
      /gateway_influx_points_written_total (\d+)/.exec(
        await (await fetch(`${gw.httpUrl}/metrics`)).text(),
      )?.[1],
    );

  it('sends readings stored before InfluxDB was configured, and after a restart only what it lacks', async () => {
    // 1. No InfluxDB yet: readings go to the local store only.
    const a = await startTestGateway({}, { dataDir });
    await publish(a, 0, 20);
    await a.cleanup();

    // 2. InfluxDB configured: the stored history reaches it, then live readings follow.
    const b = await startTestGateway(
      { influx: { url: influx.url, db: 'hist', flushIntervalMs: 50 } },
      { dataDir },
    );
    await waitFor(async () => (await inInflux()) === 20, 15_000, 'the 20 stored readings in InfluxDB');
    await publish(b, 20, 10);
    await waitFor(async () => (await inInflux()) === 30, 15_000, '30 readings in InfluxDB');
    // InfluxDB makes a batch queryable before the gateway has its answer and counts the points, so the
    // counter is read once it has caught up, and then must not have counted any point twice.
    await waitFor(async () => (await written(b)) >= 30, 15_000, 'the gateway counting 30 points written');
    expect(await written(b)).toBe(30);
    await b.cleanup();

    // 3. A restart resumes after the saved position: the 30 already written are not sent again.
    const c = await startTestGateway(
      { influx: { url: influx.url, db: 'hist', flushIntervalMs: 50 } },
      { dataDir },
    );
    await publish(c, 30, 5);
    await waitFor(async () => (await inInflux()) === 35, 15_000, '35 readings in InfluxDB');
    await waitFor(async () => (await written(c)) >= 5, 15_000, 'the gateway counting 5 points written');
    expect(await written(c)).toBe(5);
    const backlog = async () =>
      (
        (await (await fetch(`${c.httpUrl}/api/health`)).json()) as {
          components: Array<{ name: string; backlog?: number }>;
        }
      ).components.find((x) => x.name === 'influxdb')?.backlog;
    await waitFor(async () => (await backlog()) === 0, 15_000, 'an empty InfluxDB backlog');
    expect(await inInflux()).toBe(35);
    await c.cleanup();
  });
});

describe.runIf(haveBinary('victoria-metrics'))(
  'gateway to the InfluxDB 2 write API (victoria-metrics)',
  () => {
    let vm: VictoriaServer;
    let gw: TestGateway;
    beforeAll(async () => {
      vm = await startVictoria();
      gw = await startTestGateway({
        influx: { url: vm.url, org: 'town', bucket: 'telemetry', token: 't0k3n', flushIntervalMs: 100 },
      });
    });
    afterAll(async () => {
      await gw?.cleanup();
      await vm?.stop();
    });

    it('writes through @influxdata/influxdb-client and reads back', async () => {
      const c = await mqtt.connectAsync(gw.mqttUrl, {
        clientId: 'oak-lane/panel-1',
        username: 'oak-lane/panel-1',
        password: 'pw-panel-1',
      });
      const ts = Date.parse('2026-05-02T08:00:00Z');
      for (let i = 0; i < 20; i++)
        await c.publishAsync(
          'sites/oak-lane/devices/panel-1/telemetry',
          JSON.stringify({ ts: ts + i * 1000, levelIn: 10 + i }),
          { qos: 1 },
        );
      await c.endAsync();
      const series = await waitFor(
        async () => {
          await vm.forceFlush();
          const s = await vm.exportSeries('{__name__="telemetry_levelIn"}');
          return s[0] && s[0].values.length === 20 ? s : undefined;
        },
        15_000,
        '20 samples in victoria-metrics',
      );
      expect(series[0]!.metric).toMatchObject({ site: 'oak-lane', device: 'panel-1', kind: 'septic-panel' });
      expect(series[0]!.timestamps[0]).toBe(ts);
      expect(series[0]!.values.at(-1)).toBe(29);
    });
  },
);
