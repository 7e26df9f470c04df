/**
 * GET /api/charts through a real gateway: a year of readings answered in at most 1,000 buckets a series
 * with the rain preserved, a storm with its threshold line, band and crossing, a sediment trap with a
 * stage-storage table as a share of its capacity with the 50 % line, a holding tank's high level and
 * alarm episode, an outlet against the background plus the margin, and the gaps in the evidence.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fractionFilled } from '../../gateway/src/rules/sediment-cleanout/evaluator.ts';
import { openDatabase } from '../../gateway/src/store/db.ts';
import { EvidenceLog } from '../../gateway/src/store/evidenceLog.ts';
import { ReadingStore } from '../../gateway/src/store/readings.ts';
import { MAX_CHART_BUCKETS } from '../../shared/src/api/chartRanges.ts';
import { type ChartPanel, type ChartsAnswer, chartsAnswerSchema } from '../../shared/src/api/charts.ts';
import type { StormDto } from '../../shared/src/api.ts';
import type { Reading } from '../../shared/src/telemetry.ts';
import { waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway, testHash } from '../helpers/gateway.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const STAGE: Array<[number, number]> = [
  [0, 0],
  [6, 10],
  [12, 30],
  [24, 100],
];

type Seed = Omit<Reading, 'receivedAt' | 'transport' | 'siteId'> & { siteId?: string };

/** Readings written through the store's own API (and its evidence log) before the gateway starts. */
function seedStore(dataDir: string, readings: Seed[]): void {
  const db = openDatabase(dataDir);
  try {
    const store = new ReadingStore(db, new EvidenceLog(db));
    for (let i = 0; i < readings.length; i += 2000)
      db.transaction(() =>
        store.batch(() => {
          for (const r of readings.slice(i, i + 2000))
            store.insert({ siteId: 'maple-ridge', transport: 'import', receivedAt: r.ts + 500, ...r });
        }),
      )();
  } finally {
    db.close();
  }
}

describe('GET /api/charts', () => {
  let gw: TestGateway;
  let dataDir: string;
  const clients: MqttClient[] = [];
  const now = Date.now();
  /** rg-1's rain in inches, reading by reading, after the first (a counter's first reading is its base). */
  let rg1Inches = 0;
  let trapDepths: Array<{ ts: number; depth: number }> = [];
  const rg1Battery: Array<{ ts: number; v: number }> = [];

  const charts = async (query: string): Promise<ChartsAnswer> => {
    const res = await fetch(`${gw.httpUrl}/api/charts?${query}`);
    expect(res.status, await res.clone().text()).toBe(200);
    return chartsAnswerSchema.parse(await res.json());
  };
  const panel = (a: ChartsAnswer, id: string): ChartPanel => {
    const p = a.panels.find((x) => x.id === id);
    expect(p, `panel ${id} among ${a.panels.map((x) => x.id).join(', ')}`).toBeDefined();
    return p!;
  };
  const series = (p: ChartPanel, measure: string) => {
    const s = p.series.find((x) => x.measure === measure && !x.reference);
    expect(s, `series ${measure} of ${p.id}`).toBeDefined();
    return s!;
  };

  async function device(siteId: string, deviceId: string): Promise<MqttClient> {
    const c = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: `${siteId}/${deviceId}`,
      username: `${siteId}/${deviceId}`,
      password: `pw-${deviceId}`,
      reconnectPeriod: 0,
    });
    clients.push(c);
    return c;
  }
  let seq = 0;
  const publish = (c: MqttClient, siteId: string, deviceId: string, body: Record<string, unknown>) =>
    c.publishAsync(`sites/${siteId}/devices/${deviceId}/telemetry`, JSON.stringify({ seq: ++seq, ...body }), {
      qos: 1,
    });

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'gw-charts-'));
    const seeds: Seed[] = [];
    // rg-1: a year, hourly; a counter rising by 0-6 tips, restarted once (a drop is a restart, never negative rain).
    let count = 0;
    const first = now - 365 * DAY;
    for (let i = 0, ts = first; ts < now - HOUR; i++, ts += HOUR) {
      const inc = (i * 7) % 11 < 4 ? i % 7 : 0;
      count = i === 4000 ? inc : count + inc;
      if (i > 0) rg1Inches += inc * 0.01;
      rg1Battery.push({ ts, v: 3.4 + (i % 24) / 100 });
      seeds.push({
        deviceId: 'rg-1',
        deviceKind: 'rain-gauge',
        ts,
        values: { rainTips: count, batteryV: 3.4 + (i % 24) / 100 },
      });
    }
    // trap-1: the last month, hourly, with a ten-hour gap five days ago; sediment from 2 in to 20 in.
    trapDepths = [];
    for (let h = 30 * 24; h >= 1; h--) {
      if (h > 5 * 24 && h <= 5 * 24 + 10) continue;
      const ts = now - h * HOUR;
      const depth = Math.round((2 + ((30 * 24 - h) / (30 * 24)) * 18) * 100) / 100;
      trapDepths.push({ ts, depth });
      seeds.push({ deviceId: 'trap-1', deviceKind: 'sediment-trap', ts, values: { sedimentIn: depth } });
    }
    // Turbidity: the background at 10 NTU, the outlet at 70, the last day.
    for (let h = 24; h >= 1; h--) {
      seeds.push({
        deviceId: 'turb-up',
        deviceKind: 'turbidity',
        ts: now - h * HOUR,
        values: { turbidityNtu: 10 },
      });
      seeds.push({
        deviceId: 'turb-out',
        deviceKind: 'turbidity',
        ts: now - h * HOUR + MIN,
        values: { turbidityNtu: 70 },
      });
    }
    seeds.sort((a, b) => a.ts - b.ts);
    seedStore(dataDir, seeds);

    gw = await startTestGateway(
      {
        sites: [
          {
            id: 'maple-ridge',
            kind: 'construction',
            devices: [
              { id: 'rg-1', kind: 'rain-gauge', inchesPerTip: 0.01, passwordHash: testHash('pw-rg-1') },
              { id: 'rg-2', kind: 'rain-gauge', inchesPerTip: 0.01, passwordHash: testHash('pw-rg-2') },
              {
                id: 'trap-1',
                kind: 'sediment-trap',
                stageStorage: STAGE,
                passwordHash: testHash('pw-trap-1'),
              },
              { id: 'turb-up', kind: 'turbidity', role: 'background', passwordHash: testHash('pw-turb-up') },
              { id: 'turb-out', kind: 'turbidity', role: 'outlet', passwordHash: testHash('pw-turb-out') },
            ],
          },
          {
            id: 'pine-hill',
            kind: 'holding-tank',
            devices: [
              { id: 'tank-1', kind: 'holding-tank', highLevelIn: 48, passwordHash: testHash('pw-tank-1') },
            ],
          },
        ],
      },
      { dataDir },
    );
    // rg-2: a storm three hours ago, live: 0.62 in, crossing 0.5 in at its last reading.
    const rg2 = await device('maple-ridge', 'rg-2');
    await publish(rg2, 'maple-ridge', 'rg-2', { ts: now - 5 * HOUR, rainTips: 0 });
    await publish(rg2, 'maple-ridge', 'rg-2', { ts: now - 4 * HOUR, rainTips: 10 });
    await publish(rg2, 'maple-ridge', 'rg-2', { ts: now - 3.5 * HOUR, rainTips: 30 });
    await publish(rg2, 'maple-ridge', 'rg-2', { ts: now - 3 * HOUR, rainTips: 62 });
    // tank-1: rising to 50 in, its float up for ten minutes.
    const tank = await device('pine-hill', 'tank-1');
    for (let m = 60; m >= 0; m -= 5)
      await publish(tank, 'pine-hill', 'tank-1', {
        ts: now - m * MIN,
        levelIn: 50 - m / 10,
        alarms: { highWater: m <= 30 && m >= 20 },
      });
    await waitFor(
      async () => {
        const storms = (await (
          await fetch(`${gw.httpUrl}/api/storms?siteId=maple-ridge`)
        ).json()) as StormDto[];
        return storms.some((s) => s.deviceId === 'rg-2' && s.qualified);
      },
      10_000,
      'the rg-2 storm',
    );
  });

  afterAll(async () => {
    for (const c of clients) c.end(true);
    await gw?.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers a year in at most 1,000 buckets a series, with the rain added up exactly', async () => {
    const a = await charts('siteId=maple-ridge&deviceId=rg-1&range=year');
    expect(a.range).toBe('year');
    expect(Date.parse(a.to) - Date.parse(a.from)).toBe(366 * DAY);
    expect(a.bucketMs).toBe(12 * HOUR);
    const rain = panel(a, 'rg-1/rain');
    expect(rain.count).toBeLessThanOrEqual(MAX_CHART_BUCKETS);
    for (const p of a.panels)
      for (const s of p.series) {
        expect(s.values.length).toBeLessThanOrEqual(MAX_CHART_BUCKETS);
        expect(s.bucketMs % p.bucketMs).toBe(0);
      }
    const bars = series(rain, 'rain');
    expect(bars).toMatchObject({ style: 'bars', bucket: 'sum', unit: 'in', label: 'Rain per 12 h' });
    const total = bars.values.reduce<number>((t, v) => t + (v ?? 0), 0);
    expect(total).toBeCloseTo(rg1Inches, 6);
    expect(rain.axes).toEqual([{ label: 'Rain (in)', unit: 'in' }]);
    expect(rain.lines).toEqual([{ measure: 'stormRain', value: 0.5, label: 'Storm threshold 0.50 in' }]);
    // Battery: the last reading of each bucket, with the bucket's smallest and largest.
    const health = panel(a, 'rg-1/health');
    const battery = series(health, 'batteryV');
    expect(health.axes[0]).toEqual({ label: 'Battery (V)', unit: 'V' });
    expect(battery.bucket).toBe('last');
    const start = Date.parse(health.start);
    for (const k of [10, 300, battery.values.length - 5]) {
      const inBucket = rg1Battery.filter((b) => Math.floor((b.ts - start) / health.bucketMs) === k);
      expect(inBucket.length).toBe(12);
      const vs = inBucket.map((b) => b.v);
      expect(battery.values[k]).toBeCloseTo(vs.at(-1)!, 6);
      expect(battery.min![k]).toBeCloseTo(Math.min(...vs), 6);
      expect(battery.max![k]).toBeCloseTo(Math.max(...vs), 6);
    }
  });

  it('answers a week in quarter hours, the rain still per hour', async () => {
    const a = await charts('siteId=maple-ridge&deviceId=rg-1&range=week');
    expect(a.bucketMs).toBe(15 * MIN);
    const bars = series(panel(a, 'rg-1/rain'), 'rain');
    expect(bars.bucketMs).toBe(HOUR);
    expect(bars.label).toBe('Rain per hour');
  });

  it("draws a storm: the site's threshold, the storm as a band, the crossing marked", async () => {
    const [storm] = (
      (await (await fetch(`${gw.httpUrl}/api/storms?siteId=maple-ridge`)).json()) as StormDto[]
    ).filter((s) => s.deviceId === 'rg-2');
    const rain = panel(await charts('siteId=maple-ridge&deviceId=rg-2&range=day'), 'rg-2/rain');
    expect(rain.title).toBe('Rain at rg-2');
    expect(rain.lines.map((l) => l.value)).toEqual([0.5]);
    expect(rain.bands.filter((b) => b.kind === 'storm')).toEqual([
      { kind: 'storm', from: storm!.start, to: storm!.end, label: 'Storm', detail: '0.62 in' },
    ]);
    expect(rain.markers).toEqual([
      { measure: 'stormRain', at: storm!.thresholdAt, label: 'Threshold crossed' },
    ]);
    const running = series(rain, 'stormRain');
    expect(Math.max(...running.values.map((v) => v ?? 0))).toBeCloseTo(0.62, 6);
    const bars = series(rain, 'rain');
    expect(bars.values.reduce<number>((t, v) => t + (v ?? 0), 0)).toBeCloseTo(0.62, 6);
  });

  it('shows sediment as a share of the capacity by the stage-storage table, with the 50 % line and the gap', async () => {
    const a = await charts('siteId=maple-ridge&deviceId=trap-1&range=month');
    expect(a.bucketMs).toBe(HOUR);
    const p = panel(a, 'trap-1/sediment');
    expect(p.axes).toEqual([{ label: '% of capacity', unit: '% of capacity' }]);
    expect(p.lines).toEqual([
      { measure: 'sedimentPct', value: 50, label: 'Cleanout at 50% of capacity (by volume)' },
    ]);
    const pct = series(p, 'sedimentPct');
    const dev = { id: 'trap-1', kind: 'sediment-trap' as const, stageStorage: STAGE };
    const start = Date.parse(p.start);
    for (const { ts, depth } of trapDepths.filter((_, k) => k % 50 === 0)) {
      const v = pct.values[Math.floor((ts - start) / p.bucketMs)];
      expect(v).toBeCloseTo(fractionFilled(dev, depth)! * 100, 4);
    }
    // By volume, not by depth: 12 in of 24 is 30 % of this trap's volume.
    expect(fractionFilled(dev, 12)).toBeCloseTo(0.3, 6);
    const gaps = p.bands.filter((b) => b.kind === 'gap');
    const tenHours = gaps.find((g) => Date.parse(g.to) - Date.parse(g.from) >= 10 * HOUR);
    expect(tenHours?.label).toBe('No data (no evidence)');
    expect(Date.parse(tenHours!.to)).toBeLessThan(now - 4 * DAY);
  });

  it("shows a holding tank's high level and its alarm episode", async () => {
    const p = panel(await charts('siteId=pine-hill&range=day'), 'tank-1/level');
    expect(p.title).toBe('Tank level at tank-1');
    expect(p.axes[0]!.label).toBe('Tank level (in)');
    expect(p.lines).toEqual([{ measure: 'levelIn', value: 48, label: 'High level 48 in' }]);
    const alarms = p.bands.filter((b) => b.kind === 'alarm');
    expect(alarms).toEqual([
      {
        kind: 'alarm',
        from: new Date(now - 30 * MIN).toISOString(),
        to: new Date(now - 15 * MIN).toISOString(),
        label: 'High-water alarm',
      },
    ]);
  });

  it('compares an outlet with the background plus the margin', async () => {
    const p = panel(await charts('siteId=maple-ridge&deviceId=turb-out&range=day'), 'turb-out/turbidity');
    const ref = p.series.find((s) => s.reference);
    expect(ref?.label).toBe('Background + 50 NTU');
    expect(new Set(ref!.values.filter((v) => v !== null))).toEqual(new Set([60]));
    expect(new Set(series(p, 'turbidityNtu').values.filter((v) => v !== null))).toEqual(new Set([70]));
  });

  it('refuses more than a year, a range backwards and an unknown device', async () => {
    const year = await fetch(`${gw.httpUrl}/api/charts?siteId=maple-ridge&from=0&to=${now}`);
    expect(year.status).toBe(400);
    expect(((await year.json()) as { message: string }).message).toMatch(/a year at most/);
    expect(
      (await fetch(`${gw.httpUrl}/api/charts?siteId=maple-ridge&from=${now}&to=${now - DAY}`)).status,
    ).toBe(400);
    expect((await fetch(`${gw.httpUrl}/api/charts?siteId=maple-ridge&deviceId=rg-9`)).status).toBe(404);
    expect((await fetch(`${gw.httpUrl}/api/charts?siteId=nowhere`)).status).toBe(404);
  });
});
