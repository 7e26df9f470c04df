/**
 * The provisioned Grafana dashboard (deploy/grafana/). Grafana does not run here, so: the provisioning
 * files and the dashboard JSON are checked against the fields Grafana's provisioning and dashboard
 * schema require, and every InfluxQL query in the dashboard (the panels' and the site variable's) is run
 * verbatim, its template variables substituted as Grafana does, against the real InfluxDB 1.6.7 a real
 * gateway writes to: each must succeed and return the values the panel draws, the legal lines included.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { haveBinary, waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway, testConfigInput } from '../helpers/gateway.ts';
import { type InfluxdServer, startInfluxd } from '../helpers/influxd.ts';

const ROOT = join(import.meta.dirname, '../..');
const GRAFANA = join(ROOT, 'deploy/grafana');

interface Target {
  refId: string;
  datasource: { type: string; uid: string };
  rawQuery: boolean;
  query: string;
  resultFormat: string;
}
interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { h: number; w: number; x: number; y: number };
  datasource?: { type: string; uid: string };
  targets?: Target[];
  repeat?: string;
  fieldConfig?: {
    defaults: {
      thresholds?: { mode: string; steps: Array<{ color: string; value: number | null }> };
      custom?: { thresholdsStyle?: { mode: string } };
    };
  };
}
interface Dashboard {
  uid: string;
  title: string;
  schemaVersion: number;
  panels: Panel[];
  templating: { list: Array<{ name: string; type: string; query: string; datasource: { uid: string } }> };
}

const dashboard = JSON.parse(readFileSync(join(GRAFANA, 'dashboards/compliance.json'), 'utf8')) as Dashboard;
const datasources = parse(readFileSync(join(GRAFANA, 'provisioning/datasources/influxdb.yaml'), 'utf8'));
const providers = parse(readFileSync(join(GRAFANA, 'provisioning/dashboards/compliance.yaml'), 'utf8'));
const queryPanels = dashboard.panels.filter((p) => p.type !== 'row');

/** Grafana's built-in variables for the ends of the time range (epoch ms), as the queries name them. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax
const FROM = '${__from}';
// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax
const TO = '${__to}';

/** Grafana's escaping of a variable's value inside an InfluxQL regex, and its multi-value form. */
const regexValue = (values: string[]) => {
  const esc = values.map((v) => v.replace(/[\\^$*+?.()|[\]{}/]/g, '\\$&'));
  return esc.length === 1 ? esc[0]! : `(${esc.join('|')})`;
};

/** A query as Grafana sends it: `$site`, `$timeFilter`, `${__from}`, `${__to}` and `$__interval` substituted. */
function substitute(q: string, sites: string[], from: number, to: number): string {
  return q
    .replaceAll('$timeFilter', `time >= ${from}ms and time <= ${to}ms`)
    .replaceAll(FROM, String(from))
    .replaceAll(TO, String(to))
    .replaceAll('$__interval', '1m')
    .replaceAll('$site', regexValue(sites));
}

describe('the Grafana provisioning and dashboard JSON', () => {
  it('provisions the InfluxDB datasource the panels name, and the dashboards folder compose mounts', () => {
    expect(datasources.apiVersion).toBe(1);
    const [ds] = datasources.datasources;
    expect(ds).toMatchObject({ type: 'influxdb', access: 'proxy', url: 'http://influxdb:8086' });
    // Grafana substitutes the environment's values: the compose file gives its service both.
    expect(ds.jsonData.dbName).toMatch(/^\$\{INFLUX_BUCKET\}$/);
    expect(ds.jsonData.httpHeaderName1).toBe('Authorization');
    expect(ds.secureJsonData.httpHeaderValue1).toMatch(/^Token \$\{INFLUX_TOKEN\}$/);
    expect(providers.apiVersion).toBe(1);
    const [provider] = providers.providers;
    expect(provider).toMatchObject({ type: 'file' });
    const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true });
    expect(Object.keys(compose.services.grafana.environment)).toEqual(
      expect.arrayContaining(['INFLUX_BUCKET', 'INFLUX_TOKEN']),
    );
    const volumes = compose.services.grafana.volumes as string[];
    expect(volumes).toContain(`./deploy/grafana/dashboards:${provider.options.path}:ro`);
    expect(volumes).toContain('./deploy/grafana/provisioning:/etc/grafana/provisioning:ro');
    for (const p of queryPanels) {
      expect(p.datasource?.uid, p.title).toBe(ds.uid);
      for (const t of p.targets ?? []) expect(t.datasource.uid, p.title).toBe(ds.uid);
    }
    expect(dashboard.templating.list[0]!.datasource.uid).toBe(ds.uid);
  });

  it("has the dashboard schema's required fields, panels on the grid, and threshold lines", () => {
    expect(dashboard.uid).toMatch(/^[A-Za-z0-9_-]{1,40}$/);
    expect(dashboard.title.length).toBeGreaterThan(0);
    expect(Number.isInteger(dashboard.schemaVersion)).toBe(true);
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    const types = ['row', 'timeseries', 'table', 'stat'];
    for (const p of dashboard.panels) {
      expect(types, p.title).toContain(p.type);
      const g = p.gridPos;
      for (const k of ['h', 'w', 'x', 'y'] as const)
        expect(Number.isInteger(g[k]), `${p.title} ${k}`).toBe(true);
      expect(g.x + g.w).toBeLessThanOrEqual(24);
      if (p.type === 'row') continue;
      const refIds = (p.targets ?? []).map((t) => t.refId);
      expect(refIds.length, p.title).toBeGreaterThan(0);
      expect(new Set(refIds).size).toBe(refIds.length);
      for (const t of p.targets!) {
        expect(t.rawQuery).toBe(true);
        expect(['time_series', 'table']).toContain(t.resultFormat);
      }
      const th = p.fieldConfig?.defaults.thresholds;
      if (th) {
        expect(['absolute', 'percentage']).toContain(th.mode);
        expect(th.steps[0]!.value).toBeNull();
        const values = th.steps.slice(1).map((s) => s.value as number);
        expect(values).toEqual([...values].sort((a, b) => a - b));
      }
    }
    // The duty counts read each site and rule's newest count up to the range's end, not the newest
    // inside the range: a duty unchanged for longer than the range is still open.
    for (const title of [/^Open duties$/, /^Overdue duties$/, /^Duties by site and rule$/]) {
      const p = queryPanels.find((x) => title.test(x.title))!;
      for (const t of p.targets!) {
        expect(t.query, p.title).not.toContain('$timeFilter');
        expect(t.query, p.title).toContain(`time <= ${TO}ms`);
      }
    }
    // Each site's row repeats over the site variable.
    expect(dashboard.panels.find((p) => p.type === 'row')?.repeat).toBe('site');
    expect(dashboard.templating.list.map((v) => v.name)).toContain('site');
    // The legal lines: 0.5 in storm threshold and the 50 % cleanout line drawn as lines.
    const line = (title: RegExp) => {
      const p = queryPanels.find((x) => title.test(x.title))!;
      expect(p.fieldConfig?.defaults.custom?.thresholdsStyle?.mode).toMatch(/^line/);
      return p.fieldConfig!.defaults.thresholds!.steps.map((s) => s.value);
    };
    expect(line(/storm/i)).toContain(0.5);
    expect(line(/sediment/i)).toContain(50);
  });
});

describe.runIf(haveBinary('influxd'))('every dashboard query against InfluxDB 1.6.7 fed by a gateway', () => {
  let influx: InfluxdServer;
  let gw: TestGateway;
  const t0 = Date.now();

  beforeAll(async () => {
    influx = await startInfluxd({ db: 'compliance' });
    const base = testConfigInput();
    gw = await startTestGateway({
      ...base,
      sites: [
        ...base.sites!,
        {
          id: 'cedar-court',
          name: 'Cedar Court',
          kind: 'holding-tank',
          devices: [{ id: 'tank-1', kind: 'holding-tank', liquidDepthIn: 72, highLevelIn: 60 }],
        },
      ],
      mqtt: { allowAnonymous: true },
      influx: { url: influx.url, db: 'compliance', flushIntervalMs: 100 },
    });
    const c = await mqtt.connectAsync(gw.mqttUrl, { reconnectPeriod: 0 });
    const send = (site: string, device: string, body: Record<string, unknown>) =>
      c.publishAsync(`sites/${site}/devices/${device}/telemetry`, JSON.stringify(body), { qos: 1 });
    // 60 tips of 0.01 in over 2 minutes: a 0.6 in storm at a construction site.
    await send('maple-ridge', 'rg-1', { ts: t0 - 600_000, rainTips: 100, batteryV: 3.9, rssi: -72 });
    await send('maple-ridge', 'rg-1', { ts: t0 - 480_000, rainTips: 160, batteryV: 3.8, rssi: -70 });
    // 14 of 24 in: 58 % of the trap's capacity.
    await send('maple-ridge', 'trap-1', { ts: t0 - 420_000, sedimentIn: 14, batteryV: 3.5 });
    // 65 in in a tank whose high level is 60 in.
    await send('cedar-court', 'tank-1', { ts: t0 - 360_000, levelIn: 65, batteryV: 12.4 });
    await c.endAsync();
    await waitFor(
      async () => {
        const storms = await influx.select('SELECT * FROM storms', 'compliance');
        const alerts = await influx.select(
          "SELECT * FROM alerts WHERE rule = 'holding-tank-pumpout' OR rule = 'storm-inspection'",
          'compliance',
        );
        const tank = await influx.select("SELECT * FROM telemetry WHERE device = 'tank-1'", 'compliance');
        return storms.some((s) => s.inches === 0.6) && alerts.length >= 2 && tank.length === 1;
      },
      30_000,
      'the storm, the alerts and the tank level in InfluxDB',
    );
  }, 90_000);

  afterAll(async () => {
    await gw?.cleanup();
    await influx?.stop();
  });

  /** Runs a dashboard query for both sites (Grafana's "All") and returns its series. */
  const run = async (q: string) => {
    const res = await influx.query(
      substitute(q, ['maple-ridge', 'cedar-court'], t0 - 3_600_000, t0 + 3_600_000),
      'compliance',
    );
    const r = res.results[0]!;
    expect(r.error, q).toBeUndefined();
    return r.series ?? [];
  };
  /** The rows of the series, as objects, with the series' tags. */
  const rows = (series: Awaited<ReturnType<typeof run>>) =>
    series.flatMap((s) =>
      s.values.map((v) => ({ ...s.tags, ...Object.fromEntries(s.columns.map((c, i) => [c, v[i]])) })),
    ) as Array<Record<string, unknown>>;

  it('runs every panel query: each returns series with a value in every column', async () => {
    let n = 0;
    for (const p of queryPanels)
      for (const t of p.targets!) {
        const series = await run(t.query);
        expect(series.length, `${p.title}: ${t.query}`).toBeGreaterThan(0);
        const columns = series[0]!.columns.filter((c) => c !== 'time');
        for (const c of columns) {
          const some = rows(series).some((r) => r[c] !== null && r[c] !== undefined);
          expect(some, `${p.title}: column ${c}`).toBe(true);
        }
        n++;
      }
    expect(n).toBe(queryPanels.length);
    // The site variable's query lists both sites.
    const sites = await run(dashboard.templating.list[0]!.query);
    expect(rows(sites).map((r) => r.value)).toEqual(expect.arrayContaining(['maple-ridge', 'cedar-court']));
  });

  it('draws the legal lines from the sites: storm threshold, cleanout line, high level', async () => {
    const q = (title: RegExp) => queryPanels.find((p) => title.test(p.title))!.targets![0]!.query;
    const storms = rows(await run(q(/^Rain per storm/)));
    expect(storms).toEqual([expect.objectContaining({ device: 'rg-1', storm: 0.6, threshold: 0.5 })]);
    const rain = rows(await run(q(/^Rain \(in\)/)));
    expect(rain.length).toBe(1);
    expect(rain[0]!.rain as number).toBeCloseTo(0.6, 9);
    const sediment = rows(await run(q(/^Sediment/)));
    expect(sediment).toEqual([expect.objectContaining({ device: 'trap-1', 'cleanout line': 50 })]);
    expect(sediment[0]!.sediment as number).toBeCloseTo((14 / 24) * 100, 3);
    const tank = rows(await run(q(/^Tank level/)));
    expect(tank).toEqual([expect.objectContaining({ device: 'tank-1', level: 65, 'high level': 60 })]);
    const devices = rows(await run(q(/^Devices/)));
    const rg = devices.find((r) => r.device === 'rg-1')!;
    expect(rg).toMatchObject({ 'battery (V)': 3.8, 'RSSI (dBm)': -70 });
    expect(rg['last seen'] as number).toBeGreaterThanOrEqual(t0);
    const duties = rows(await run(q(/^Duties by site/)));
    expect(duties).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ site: 'maple-ridge', rule: 'storm-inspection', open: 1 }),
        expect.objectContaining({ site: 'cedar-court', rule: 'holding-tank-pumpout', open: 1 }),
      ]),
    );
    const open = rows(await run(q(/^Open duties$/)));
    expect(open[0]!.sum as number).toBeGreaterThanOrEqual(2);
  });

  it('counts the duties still open when the range starts after their last change', async () => {
    const q = (title: RegExp) => queryPanels.find((p) => title.test(p.title))!.targets![0]!.query;
    // A range that starts after the newest duty change: every duty is older than the range.
    const newest = await influx.query('SELECT last("open_duties") FROM "alerts"', 'compliance');
    const lastChange = newest.results[0]!.series![0]!.values[0]![0] as number;
    expect(Number.isFinite(lastChange)).toBe(true);
    const later = async (query: string) => {
      const res = await influx.query(
        substitute(query, ['maple-ridge', 'cedar-court'], lastChange + 1, lastChange + 3_600_000),
        'compliance',
      );
      expect(res.results[0]!.error, query).toBeUndefined();
      return rows(res.results[0]!.series ?? []);
    };
    // The same counts as over a range that holds every change.
    for (const title of [/^Open duties$/, /^Overdue duties$/]) {
      const now = rows(await run(q(title)))[0]!.sum as number;
      expect((await later(q(title)))[0]!.sum, String(title)).toBe(now);
    }
    expect((await later(q(/^Open duties$/)))[0]!.sum as number).toBeGreaterThanOrEqual(2);
    expect(await later(q(/^Duties by site and rule$/))).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ site: 'cedar-court', rule: 'holding-tank-pumpout', open: 1 }),
      ]),
    );
    // What the panels read before: the newest count inside the range, which has none.
    const before = q(/^Open duties$/).replace(`time <= ${TO}ms`, '$timeFilter');
    expect(await later(before)).toEqual([]);
  });
});
