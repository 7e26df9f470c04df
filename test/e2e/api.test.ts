import { createHash } from 'node:crypto';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCheckpoint, parseVerifierKey, verifyNote } from '../../gateway/src/ledger/checkpoint.ts';
import { waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { completeInspection } from '../helpers/inspections.ts';
import { fetchAnonymous } from '../helpers/viewerFetch.ts';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const TOKENS = { viewer: 'tok-viewer', inspector: 'tok-inspector', engineer: 'tok-engineer' };

describe('HTTP API', () => {
  let gw: TestGateway;
  const t0 = Date.parse('2026-11-20T15:00:00Z');
  const auth = (role: keyof typeof TOKENS) => ({
    authorization: `Bearer ${TOKENS[role]}`,
    'content-type': 'application/json',
  });
  const get = async <T>(path: string) => (await (await fetch(`${gw.httpUrl}${path}`)).json()) as T;

  beforeAll(async () => {
    gw = await startTestGateway({
      auth: {
        tokens: [
          { name: 'Vic Viewer', role: 'viewer', tokenSha256: sha(TOKENS.viewer) },
          { name: 'Ida Inspector', role: 'inspector', tokenSha256: sha(TOKENS.inspector) },
          { name: 'Eve Engineer PE', role: 'engineer', tokenSha256: sha(TOKENS.engineer) },
        ],
      },
    });
    // A 0.62 in storm on Nov 20 (source time), one tip a minute.
    const c = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
    });
    for (let i = 0; i <= 62; i++)
      await c.publishAsync(
        'sites/maple-ridge/devices/rg-1/telemetry',
        JSON.stringify({ ts: t0 + i * 60_000, seq: i, rainTips: i }),
        { qos: 1 },
      );
    // The gauge's heartbeat the next day, 01:00 (its counter unchanged): the storm has ended.
    await c.publishAsync(
      'sites/maple-ridge/devices/rg-1/telemetry',
      JSON.stringify({ ts: t0 + 10 * 3_600_000, seq: 63, rainTips: 62 }),
      { qos: 1 },
    );
    await c.endAsync();
    // A pump alarm on oak-lane's panel the same day, held for two minutes: an equipment-remedy alert,
    // whose deadline an engineer's letter may extend.
    const panel = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'oak-lane/panel-1',
      username: 'oak-lane/panel-1',
      password: 'pw-panel-1',
    });
    for (let i = 0; i <= 2; i++)
      await panel.publishAsync(
        'sites/oak-lane/devices/panel-1/telemetry',
        JSON.stringify({ ts: t0 + i * 60_000, seq: i, alarms: { pump: true } }),
        { qos: 1 },
      );
    await panel.endAsync();
    await waitFor(
      async () => (await get<unknown[]>('/api/alerts?rule=storm-inspection')).length === 1,
      10_000,
      'the storm alert',
    );
    await waitFor(
      async () =>
        (await get<Array<{ closed: boolean }>>('/api/storms?siteId=maple-ridge')).some((s) => s.closed),
      10_000,
      'the storm, ended',
    );
    await waitFor(
      async () => (await get<unknown[]>('/api/alerts?rule=equipment-remedy')).length === 1,
      10_000,
      'the remedy alert',
    );
  });
  afterAll(async () => gw?.cleanup());

  it('serves OpenAPI at /docs and the dashboard at /', async () => {
    const doc = await get<{ openapi: string; paths: Record<string, unknown> }>('/docs/json');
    expect(doc.openapi).toMatch(/^3\./);
    for (const p of [
      '/api/health',
      '/api/sites',
      '/api/alerts',
      '/api/alerts/{id}/extend',
      '/api/inspections',
      '/api/storms',
      '/api/telemetry',
      '/api/reports/compliance',
      '/api/events',
    ])
      expect(Object.keys(doc.paths)).toContain(p);
    const page = await fetch(`${gw.httpUrl}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html');
  });

  it('answers errors from its catalogue', async () => {
    const nf = await fetch(`${gw.httpUrl}/api/sites/nowhere`);
    expect(nf.status).toBe(404);
    expect(await nf.json()).toMatchObject({ error: 'NOT_FOUND' });
    const bad = await fetch(`${gw.httpUrl}/api/telemetry?siteId=maple-ridge&from=yesterday`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toContain('from');
    const noRoute = await fetch(`${gw.httpUrl}/api/nothing-here`);
    expect(noRoute.status).toBe(404);
  });

  it('checks roles on writes: none, too low, enough', async () => {
    const [alert] = await get<Array<{ id: string }>>('/api/alerts?rule=storm-inspection');
    const url = `${gw.httpUrl}/api/alerts/${alert!.id}/ack`;
    expect(
      (await fetch(url, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }))
        .status,
    ).toBe(401);
    expect((await fetch(url, { method: 'POST', body: '{}', headers: auth('viewer') })).status).toBe(403);
    const ok = await fetch(url, { method: 'POST', body: '{}', headers: auth('inspector') });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ status: 'acknowledged', acknowledgedBy: 'Ida Inspector' });
    // The storm of Nov 20 was due on Nov 21: overdue, whether asked as a flag or as a status.
    expect(await get<unknown[]>('/api/alerts?rule=storm-inspection&overdue=true')).toHaveLength(1);
    expect(await get<unknown[]>('/api/alerts?rule=storm-inspection&status=overdue')).toHaveLength(1);
    expect(await get<unknown[]>('/api/alerts?rule=storm-inspection&overdue=false')).toHaveLength(0);
    const me = await fetch(`${gw.httpUrl}/api/auth/me`, { headers: auth('engineer') });
    expect(await me.json()).toEqual({
      name: 'Eve Engineer PE',
      role: 'engineer',
      sites: null,
      via: 'configuration',
      tokenName: 'Eve Engineer PE',
    });
  });

  it('records an extension by an engineer, keeping the old due time', async () => {
    const [alert] = await get<Array<{ id: string; dueAt: string }>>('/api/alerts?rule=equipment-remedy');
    const newDue = new Date(Date.parse(alert!.dueAt) + 48 * 3_600_000).toISOString();
    const body = JSON.stringify({ newDueAt: newDue, engineer: 'Eve Engineer PE', letterRef: 'L-2026-114' });
    expect(
      (
        await fetch(`${gw.httpUrl}/api/alerts/${alert!.id}/extend`, {
          method: 'POST',
          body,
          headers: auth('inspector'),
        })
      ).status,
    ).toBe(403);
    const res = await fetch(`${gw.httpUrl}/api/alerts/${alert!.id}/extend`, {
      method: 'POST',
      body,
      headers: auth('engineer'),
    });
    expect(res.status).toBe(200);
    const a = (await res.json()) as {
      dueAt: string;
      originalDueAt: string;
      history: Array<{ action: string; detail: Record<string, unknown> }>;
    };
    expect(a.dueAt).toBe(newDue);
    expect(a.originalDueAt).toBe(alert!.dueAt);
    expect(a.history.find((h) => h.action === 'extended')?.detail).toMatchObject({ letterRef: 'L-2026-114' });
    const earlier = JSON.stringify({ newDueAt: alert!.dueAt, engineer: 'x', letterRef: 'y' });
    const refused = await fetch(`${gw.httpUrl}/api/alerts/${alert!.id}/extend`, {
      method: 'POST',
      body: earlier,
      headers: auth('engineer'),
    });
    expect(refused.status).toBe(400);
  });

  it('an inspection closes the storm alert; the compliance report shows it on time, as JSON, CSV and HTML', async () => {
    const at = new Date(t0 + 5 * 3_600_000).toISOString();
    const rec = await fetch(`${gw.httpUrl}/api/inspections`, {
      method: 'POST',
      headers: auth('inspector'),
      body: JSON.stringify(
        completeInspection({
          siteId: 'maple-ridge',
          at,
          inspector: 'Ida Inspector',
          kind: 'storm',
          notes: 'silt fence repaired at the north outlet',
        }),
      ),
    });
    expect(rec.status).toBe(201);
    const storms = await get<Array<{ qualified: boolean; inches: number; inspection: { status: string } }>>(
      '/api/storms?siteId=maple-ridge&from=2026-11-01T00:00:00Z',
    );
    expect(storms).toHaveLength(1);
    expect(storms[0]).toMatchObject({ qualified: true, inspection: { status: 'on-time' } });
    expect(storms[0]!.inches).toBeCloseTo(0.62, 5);
    const q = 'siteId=maple-ridge&from=2026-11-01T00:00:00Z&to=2026-11-30T00:00:00Z';
    const json = await get<{
      summary: Record<string, number>;
      evidence: { audit: { ok: boolean }; chains?: unknown };
    }>(`/api/reports/compliance?${q}`);
    // The extension is of oak-lane's remedy alert: it shows in that site's report.
    const oak = 'siteId=oak-lane&from=2026-11-01T00:00:00Z&to=2026-11-30T00:00:00Z';
    const oakJson = await get<{ summary: Record<string, number> }>(`/api/reports/compliance?${oak}`);
    expect(json.summary).toMatchObject({ qualifyingStorms: 1, stormInspectionsOnTime: 1 });
    expect(oakJson.summary).toMatchObject({ extensions: 1 });
    // The log is the one integrity mechanism: the report carries its audit, no per-table hash chains.
    expect(json.evidence.audit.ok).toBe(true);
    expect(json.evidence).not.toHaveProperty('chains');
    const csv = await fetch(`${gw.httpUrl}/api/reports/compliance?${q}&format=csv`);
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const text = await csv.text();
    expect(text.split('\r\n')[0]).toBe(
      'section,id,rule,device,began,due,done,status,detail,inspection,practice,photos,signed by',
    );
    expect(text).toMatch(/^storm,.*,storm-inspection,rg-1,.*,on-time,/m);
    const oakCsv = await (await fetch(`${gw.httpUrl}/api/reports/compliance?${oak}&format=csv`)).text();
    expect(oakCsv).toMatch(/^extension,.*L-2026-114/m);
    const html = await fetch(`${gw.httpUrl}/api/reports/compliance?${q}&format=html`);
    expect(html.status).toBe(200);
    const page = await html.text();
    expect(page).toContain('Compliance report');
    expect(page).toContain('silt fence repaired');
    expect(page).toMatch(/EST/);
  });

  it('downsamples a long telemetry range and keeps counter semantics', async () => {
    const raw = await get<{ points: Array<{ value: number }>; bucketMs: number | null }>(
      '/api/telemetry?siteId=maple-ridge&deviceId=rg-1&field=rainTips&from=2026-11-20T00:00:00Z&to=2026-11-21T00:00:00Z',
    );
    expect(raw.bucketMs).toBeNull();
    expect(raw.points).toHaveLength(63);
    const ds = await get<{ points: Array<{ value: number; n: number }>; bucketMs: number }>(
      '/api/telemetry?siteId=maple-ridge&deviceId=rg-1&field=rainTips&from=2026-11-20T00:00:00Z&to=2026-11-21T00:00:00Z&maxPoints=10',
    );
    expect(ds.bucketMs).toBeGreaterThan(0);
    expect(ds.points.length).toBeLessThanOrEqual(10);
    expect(ds.points.reduce((a, p) => a + p.n, 0)).toBe(63);
    expect(ds.points.at(-1)!.value).toBe(62);
  });

  it('shows the evidence log, its signed checkpoint and the audit of the store', async () => {
    const ev = await get<{
      size: number;
      root: string;
      checkpoint: { size: number; root: string; note: string };
      audit: { ok: boolean };
      chains?: unknown;
    }>('/api/evidence');
    expect(ev.audit.ok).toBe(true);
    expect(ev.size).toBeGreaterThanOrEqual(63);
    expect(ev.checkpoint).toMatchObject({ size: ev.size, root: ev.root });
    expect(ev).not.toHaveProperty('chains');
    const key = await get<{ verifierKey: string }>('/api/evidence/key');
    const { name, publicKey } = parseVerifierKey(key.verifierKey);
    expect(parseCheckpoint(verifyNote(ev.checkpoint.note, name, publicKey))).toMatchObject({ size: ev.size });
  });
});

describe('reads behind tokens (the default)', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({
      http: { port: 0, host: '127.0.0.1' },
      auth: { tokens: [{ name: 'Vic Viewer', role: 'viewer', tokenSha256: sha(TOKENS.viewer) }] },
    });
  });
  afterAll(async () => gw?.cleanup());

  it('refuses reads without a token and serves them with one', async () => {
    expect((await fetchAnonymous(`${gw.httpUrl}/api/sites`)).status).toBe(401);
    expect(
      (
        await fetchAnonymous(`${gw.httpUrl}/api/sites`, {
          headers: { authorization: `Bearer ${TOKENS.viewer}` },
        })
      ).status,
    ).toBe(200);
  });

  it('lets the live feed take the token as access_token, since EventSource cannot send a header', async () => {
    expect((await fetchAnonymous(`${gw.httpUrl}/api/events`)).status).toBe(401);
    expect((await fetch(`${gw.httpUrl}/api/events?access_token=wrong`)).status).toBe(401);
    const ctl = new AbortController();
    const res = await fetch(`${gw.httpUrl}/api/events?access_token=${TOKENS.viewer}`, { signal: ctl.signal });
    expect(res.status).toBe(200);
    const first = await res.body!.getReader().read();
    expect(new TextDecoder().decode(first.value)).toContain('event: hello');
    ctl.abort();
  });
});
