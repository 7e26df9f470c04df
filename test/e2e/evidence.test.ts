/**
 * Evidence anyone can verify, against the real gateway and InfluxDB 1.6.7: a report verifies with only
 * the public key (in-process and with `npm run verify`), and each kind of tampering with a copy of the
 * data directory (the newest readings deleted, a storm rewritten, an inspection edited, a history row
 * removed) is detected by the gateway at its next start, by the verifier on a report made afterwards, and,
 * when the editor rebuilt the log to hide it, by the verifier holding a report made before.
 */
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zonedMidnight } from '../../gateway/src/rules/util.ts';
import { type ReportJson, verifyReport } from '../../gateway/src/verifier/verify.ts';
import { haveBinary, waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { type InfluxdServer, startInfluxd } from '../helpers/influxd.ts';
import { completeInspection } from '../helpers/inspections.ts';
import { forgeLog, type Tampering, tamper } from '../helpers/tamper.ts';
import { TEST_VIEWER_TOKEN } from '../helpers/viewerFetch.ts';

const ROOT = join(import.meta.dirname, '../..');
const TOKEN = 'evidence-admin';
const sha = (s: string) =>
  execFileSync('node', [
    '-e',
    `process.stdout.write(require('crypto').createHash('sha256').update(${JSON.stringify(s)}).digest('hex'))`,
  ]).toString();
const M = 60_000;
/**
 * The verifier as its own process; asynchronous, so the gateway in this process keeps answering it. Reads
 * need a token: it reads the live log as the test viewer (GATEWAY_TOKEN).
 */
const verifyCli = (...args: string[]) =>
  promisify(execFile)('npx', ['tsx', 'gateway/src/tools/verify.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, GATEWAY_TOKEN: TEST_VIEWER_TOKEN },
  }).then(
    (r) => ({ code: 0, out: r.stdout }),
    (e: { code?: number; stdout?: string }) => ({ code: e.code ?? -1, out: String(e.stdout ?? '') }),
  );

type Health = { components: Array<{ name: string; ok: boolean; detail?: string }> };

describe.runIf(haveBinary('influxd'))('evidence anyone can verify', () => {
  let influx: InfluxdServer;
  let base: string;
  let key: string;
  const reports: Record<string, ReportJson> = {};
  const start = (dataDir: string) =>
    startTestGateway(
      {
        influx: { url: influx.url, db: 'gateway', flushIntervalMs: 50 },
        auth: { tokens: [{ name: 'Ada Admin', role: 'admin', tokenSha256: sha(TOKEN) }] },
        evidence: { checkpointIntervalSeconds: 1 },
      } as never,
      { dataDir },
    );
  const api = async <T>(gw: TestGateway, path: string, init?: RequestInit): Promise<T> => {
    const res = await fetch(`${gw.httpUrl}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        ...(init?.headers ?? {}),
      },
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  /** The evidence component once the audit at start (run in the background) and the off-box read-back are done. */
  const evidenceHealth = (gw: TestGateway) =>
    waitFor(
      async () => {
        const e = ((await (await fetch(`${gw.httpUrl}/api/health`)).json()) as Health).components.find(
          (c) => c.name === 'evidence',
        ) as Health['components'][number] & { audit?: string; tail?: string };
        return e.audit === 'done' && e.tail !== 'checking' ? e : undefined;
      },
      60_000,
      'the audit at start to finish',
    );
  const report = (gw: TestGateway, siteId: string) =>
    api<ReportJson>(gw, `/api/reports/compliance?siteId=${siteId}&from=2020-01-01`);

  beforeAll(async () => {
    influx = await startInfluxd();
    base = mkdtempSync(join(tmpdir(), 'evidence-'));
    const gw = await start(join(base, 'original'));
    const now = Date.now();
    const rg = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
    });
    // A storm of 61 tips (0.61 in) on a cumulative counter, ended seven hours ago; the gauge's heartbeat
    // (its counter unchanged) shows the dry hours since, so the storm has ended before the inspection.
    for (let i = 0; i <= 61; i++)
      await rg.publishAsync(
        'sites/maple-ridge/devices/rg-1/telemetry',
        JSON.stringify({ ts: now - 9 * 60 * M + i * M, rainTips: i }),
        { qos: 1 },
      );
    await rg.publishAsync(
      'sites/maple-ridge/devices/rg-1/telemetry',
      JSON.stringify({ ts: now - 15 * M, rainTips: 61 }),
      { qos: 1 },
    );
    await rg.endAsync();
    const panel = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'oak-lane/panel-1',
      username: 'oak-lane/panel-1',
      password: 'pw-panel-1',
    });
    for (let i = 0; i < 4; i++)
      await panel.publishAsync(
        'sites/oak-lane/devices/panel-1/telemetry',
        JSON.stringify({ ts: now - 60 * M + i * M, levelIn: 30, alarms: { pump: true } }),
        { qos: 1 },
      );
    await panel.endAsync();
    await api(gw, '/api/inspections', {
      method: 'POST',
      body: JSON.stringify(
        completeInspection({
          siteId: 'maple-ridge',
          at: new Date(now - 10 * M).toISOString(),
          inspector: 'Ian Inspector',
          kind: 'storm',
        }),
      ),
    });
    const remedy = (await api<Array<{ id: string; rule: string }>>(gw, '/api/alerts?siteId=oak-lane')).find(
      (a) => a.rule === 'equipment-remedy',
    )!;
    await api(gw, `/api/alerts/${remedy.id}/extend`, {
      method: 'POST',
      body: JSON.stringify({
        newDueAt: new Date(now + 10 * 86_400_000).toISOString(),
        engineer: 'Eve Engineer PE',
        letterRef: 'L-7',
      }),
    });
    await api(gw, '/api/reports/compliance/certify', {
      method: 'POST',
      body: JSON.stringify({
        siteId: 'maple-ridge',
        from: '2020-01-01',
        to: new Date(now).toISOString().slice(0, 10),
      }),
    });
    key = (await api<{ verifierKey: string }>(gw, '/api/evidence/key')).verifierKey;
    reports['maple-ridge'] = await report(gw, 'maple-ridge');
    reports['oak-lane'] = await report(gw, 'oak-lane');
    // The checkpoint the reports rest on is off the box before the gateway stops.
    await waitFor(
      async () => {
        const rows = await influx.select(`SELECT last(size) FROM checkpoints WHERE gateway = 'test-gw'`);
        return Number(rows[0]?.last ?? 0) >= reports['oak-lane']!.evidence.checkpoint.size;
      },
      10_000,
      'the checkpoint in InfluxDB',
    );
    await gw.stop();
  }, 60_000);
  afterAll(async () => {
    await influx?.stop();
    if (base) rmSync(base, { recursive: true, force: true });
  });

  it('a report verifies with only the public key, and says what the records say', async () => {
    const r = reports['maple-ridge']!;
    const v = await verifyReport(r, key);
    expect(v.problems).toEqual([]);
    expect(v.ok).toBe(true);
    expect(r.storms).toHaveLength(1);
    expect(r.storms[0]).toMatchObject({
      tips: 61,
      inches: 0.61,
      qualified: true,
      inspection: { status: 'on-time' },
    });
    // The storm's readings, its record, the duties' history, the inspection and the certification are cited.
    expect(r.evidence.entries.filter((e) => e.kind === 'reading').length).toBeGreaterThanOrEqual(61);
    expect(new Set(r.evidence.entries.map((e) => e.kind))).toEqual(
      new Set(['reading', 'storm', 'alert-history', 'inspection', 'certification']),
    );
    // A storm appears once: not also among the other alerts.
    expect(r.other.filter((d) => d.rule === 'storm-inspection')).toEqual([]);
    expect((await verifyReport(reports['oak-lane']!, key)).problems).toEqual([]);
    // The log is the one integrity mechanism: no per-table hash chains. A report of an earlier release
    // carried them too; the verifier ignores them and checks everything else as before.
    expect(r.evidence).not.toHaveProperty('chains');
    const chains = [{ table: 'alert_history', ok: true, checked: 3, head: { seq: 3, hash: '00' } }];
    const older = { ...r, evidence: { ...r.evidence, chains } };
    expect((await verifyReport(older, key)).problems).toEqual([]);
    older.storms = [{ ...older.storms[0]!, tips: 1 }];
    expect((await verifyReport(older, key)).problems).toContainEqual({
      field: 'storms[0].tips',
      message: expect.stringMatching(/the report gives its tip count as 1, its logged record 61/),
    });
  });

  it('the verifier refuses a report edited by hand, and a wrong key', async () => {
    const r = structuredClone(reports['maple-ridge']!);
    r.storms[0]!.inches = 0.1;
    r.summary.dutiesOverdue = 7;
    const v = await verifyReport(r, key);
    expect(v.ok).toBe(false);
    const said = v.problems.map((p) => `${p.message} [${p.field}]`).join('\n');
    expect(said).toMatch(/its total as 0.1 in, its logged record 0.61 in \[storms\[0\]\.inches\]/);
    expect(said).toMatch(/The summary counts 7 duties overdue.*\[summary\.dutiesOverdue\]/);
    const forged = structuredClone(reports['maple-ridge']!);
    const body = JSON.parse(forged.evidence.entries.find((e) => e.kind === 'storm')!.body);
    forged.evidence.entries.find((e) => e.kind === 'storm')!.body = JSON.stringify({ ...body, tips: 10 });
    expect((await verifyReport(forged, key)).problems.map((p) => p.message).join('\n')).toMatch(
      /was changed: it does not match its fingerprint in the log/,
    );
    const other = 'someone+00000000+AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    expect((await verifyReport(reports['maple-ridge']!, other)).problems).toContainEqual({
      field: 'key',
      message: expect.stringMatching(/key id does not match/),
    });
  });

  it('counts a duty in every period it was open in, over whole days of the site', async () => {
    const gw = await start(join(base, 'original'));
    try {
      const today = new Date().toISOString().slice(0, 10);
      const weekAgo = new Date(Date.now() - 7 * 86_400_000).toISOString().slice(0, 10);
      // The annual inspection was due at the end of July and is still not done: overdue in this week too.
      const week = await api<ReportJson & { period: { from: string; firstDay: string } }>(
        gw,
        `/api/reports/compliance?siteId=oak-lane&from=${weekAgo}&to=${today}`,
      );
      expect(week.remedies.map((d) => [d.rule, d.status])).toContainEqual(['annual-inspection', 'overdue']);
      expect(week.summary.dutiesOverdue).toBeGreaterThanOrEqual(1);
      expect(week.period.firstDay).toBe(weekAgo);
      // Midnight in New York, not in UTC.
      const [y, m, d] = weekAgo.split('-').map(Number) as [number, number, number];
      expect(Date.parse(week.period.from)).toBe(zonedMidnight(y, m, d, 'America/New_York'));
      expect((await verifyReport(week, key)).problems).toEqual([]);
      const before = await api<ReportJson>(
        gw,
        '/api/reports/compliance?siteId=oak-lane&from=2020-01-01&to=2020-01-31',
      );
      expect(before.remedies).toEqual([]);
      expect(before.summary.dutiesOverdue).toBe(0);
    } finally {
      await gw.stop();
    }
  });

  it('npm run verify checks a report offline and against the live log', async () => {
    const gw = await start(join(base, 'original'));
    try {
      const file = join(base, 'report.json');
      writeFileSync(file, JSON.stringify(reports['oak-lane']));
      const { code, out } = await verifyCli(file, '--key', key, '--api', gw.httpUrl);
      expect(out).toMatch(/extends the report's checkpoint/);
      expect(out).toMatch(/^verified$/m);
      expect(code).toBe(0);
    } finally {
      await gw.stop();
    }
  });

  it('an untouched copy: the gateway finds nothing at start (every record matches its entry)', async () => {
    const dir = join(base, 'untouched');
    cpSync(join(base, 'original'), dir, { recursive: true });
    const gw = await start(dir);
    try {
      const h = await evidenceHealth(gw);
      expect((h as { problems?: unknown }).problems, h.detail).toBeUndefined();
      expect(h.ok).toBe(true);
    } finally {
      await gw.stop();
    }
  });

  const cases: Array<[Tampering, RegExp]> = [
    ['delete-newest-readings', /readings record \d+ is missing/],
    ['rewrite-storm', /storms record .* was changed after it was logged/],
    ['edit-inspection', /inspections record \d+ was changed after it was logged/],
    ['remove-history-row', /alert_history record \d+ is missing/],
  ];
  for (const [what, found] of cases) {
    it(`${what}: the gateway finds it at start, and the verifier in the next report`, async () => {
      const dir = join(base, `naive-${what}`);
      cpSync(join(base, 'original'), dir, { recursive: true });
      tamper(dir, what);
      const gw = await start(dir);
      try {
        const h = await evidenceHealth(gw);
        expect(h.ok).toBe(false);
        expect(
          (h as { problems?: Array<{ reason: string }> }).problems?.map((p) => p.reason).join('\n'),
        ).toMatch(found);
        const site = what === 'remove-history-row' ? 'oak-lane' : 'maple-ridge';
        const after = await report(gw, site);
        expect((await verifyReport(after, key)).ok).toBe(false);
      } finally {
        await gw.stop();
      }
    });

    it(`${what}, with the log rebuilt to hide it: the gateway and a report made before both find it`, async () => {
      const dir = join(base, `thorough-${what}`);
      cpSync(join(base, 'original'), dir, { recursive: true });
      tamper(dir, what);
      forgeLog(dir);
      const gw = await start(dir);
      try {
        const h = await evidenceHealth(gw);
        expect(h.ok).toBe(false);
        expect(h.detail).toMatch(/published checkpoint \(influxdb\)/);
        for (const site of ['maple-ridge', 'oak-lane']) {
          const file = join(base, `before-${site}.json`);
          writeFileSync(file, JSON.stringify(reports[site]));
          const { code, out } = await verifyCli(file, '--key', key, '--api', gw.httpUrl);
          expect(out, site).toMatch(/NOT VERIFIED: .*(rewritten|fewer than)/);
          expect(code).toBe(1);
        }
      } finally {
        await gw.stop();
      }
    });
  }
});
