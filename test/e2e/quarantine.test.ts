/**
 * The quarantine against the gateway process: a reading stamped ahead of the gateway's clock, or from a
 * device not registered yet, is acknowledged once it is kept in the quarantine, and the device's later
 * readings flow on; a clock ahead raises the device's problem for its site's people; an admin releases
 * the readings with a clock correction, evaluated by the rules at the corrected time, with a change
 * record; adding a device releases what it sent before; a client's quarantine has a cap.
 */
import { createHash } from 'node:crypto';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frameWithCrc } from '../../shared/src/crc16.ts';
import { type GatewayChild, startGatewayChild } from '../helpers/child.ts';
import { haveBinary, IN_CI, waitFor } from '../helpers/env.ts';
import { faultConfig, metrics, metricValue, publishOutcome, T } from '../helpers/faults.ts';
import { makeTempDir, openPtyWriter, type PtyPair, startPtyPair } from '../helpers/socat.ts';

const ADMIN = 'quarantine-admin-token';
const ENGINEER = 'quarantine-engineer-token';
const PASSWORD = 'owner-password-123';
const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const DAY = 86_400_000;
const CAP = 5;

interface Item {
  id: number;
  transport: string;
  deviceId: string;
  reason: string;
  why: string;
  aheadSeconds: number | null;
  status: string;
  outcome: string | null;
  releasedBy: string | null;
  offsetSeconds: number | null;
  changeId: number | null;
}
interface QList {
  items: Item[];
  devices: Array<{ deviceId: string; reason: string; waiting: number }>;
}
interface Alert {
  id: string;
  rule: string;
  deviceId?: string;
  status: string;
  message: string;
}

describe('quarantine (gateway process)', () => {
  let gw: GatewayChild;
  const clients: MqttClient[] = [];
  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${gw.httpUrl}${path}`, {
      method,
      headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> & unknown[] };
  };
  const admin = { authorization: `Bearer ${ADMIN}` };
  const quarantine = async (q = '') =>
    (await api('GET', `/api/quarantine?status=all${q}`)).body as unknown as QList;
  const readings = async (deviceId: string) =>
    (
      (
        await api(
          'GET',
          `/api/telemetry?siteId=maple-ridge&deviceId=${deviceId}&from=0&to=2100-01-01T00:00:00Z`,
        )
      ).body as unknown as { readings: Array<{ ts: string }> }
    ).readings;
  const connect = (o: mqtt.IClientOptions) => {
    const c = mqtt.connect(gw.mqttUrl, { reconnectPeriod: 1000, connectTimeout: 20_000, ...o });
    c.on('error', () => {});
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    gw = await startGatewayChild(
      faultConfig({
        mqtt: { allowAnonymous: true },
        ingest: { quarantinePerClient: CAP },
        auth: {
          tokens: [
            { name: 'Ada Admin', role: 'admin', tokenSha256: sha(ADMIN) },
            { name: 'Eve Engineer', role: 'engineer', tokenSha256: sha(ENGINEER) },
          ],
        },
      }),
    );
    const owner = {
      name: 'Olive Owner',
      email: 'olive@maple.example',
      role: 'owner',
      sites: ['maple-ridge'],
    };
    expect((await api('POST', '/api/users', { ...owner, password: PASSWORD }, admin)).status).toBe(201);
  });
  afterAll(async () => {
    for (const c of clients) c.end(true);
    await gw?.cleanup();
  });

  it('acknowledges all three readings of a gauge whose middle one is 30 days ahead: two stored, one quarantined, the clock problem raised for the site, then released with a correction through the rules', async () => {
    const now = Date.now();
    const late = now - 5 * 60_000;
    // 60 tips (0.60 in at 0.01 in a tip): a storm, but only at the reading's corrected time.
    const sent = [
      { ts: now - 10 * 60_000, seq: 1, rainTips: 0 },
      { ts: late + 30 * DAY, seq: 2, rainTips: 60 },
      { ts: now - 60_000, seq: 3, batteryV: 3.9 },
    ];
    // A gauge as devices are: a persistent session that resends what was not acknowledged.
    const c = connect({
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
      clean: false,
    });
    const acks = await Promise.all(
      sent.map((r) => c.publishAsync(T('rg-1'), JSON.stringify(r), { qos: 1 }).then(() => 'acknowledged')),
    );
    expect(acks).toEqual(['acknowledged', 'acknowledged', 'acknowledged']);
    expect((await readings('rg-1')).length).toBe(2);
    const q = await quarantine('&deviceId=rg-1');
    expect(q.items).toHaveLength(1);
    expect(q.items[0]).toMatchObject({ reason: 'future_timestamp', status: 'waiting' });
    expect(q.items[0]!.aheadSeconds).toBeGreaterThan(29 * 86_400);
    expect(q.items[0]!.why).toMatch(/clock was 30 days ahead/);
    const m = await metrics(gw.httpUrl);
    expect(metricValue(m, 'gateway_quarantined_total', 'reason="future_timestamp"')).toBe(1);
    expect(metricValue(m, 'gateway_refused_total', 'reason="future_timestamp"')).toBe(0);
    // Nothing of it reached the rules: no storm yet.
    expect((await api('GET', '/api/storms?siteId=maple-ridge&from=2020-01-01T00:00:00Z')).body).toHaveLength(
      0,
    );

    // The site's owner, signed in, sees the device's clock problem.
    const login = await fetch(`${gw.httpUrl}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'olive@maple.example', password: PASSWORD }),
    });
    expect(login.status).toBe(200);
    const cookie = login.headers
      .getSetCookie()
      .map((s) => s.split(';')[0])
      .join('; ');
    let problem: Alert | undefined;
    await waitFor(
      async () => {
        const list = (await api('GET', '/api/alerts?siteId=maple-ridge', undefined, { cookie }))
          .body as unknown as Alert[];
        problem = list.find((a) => a.deviceId === 'rg-1' && /clock/.test(a.message));
        return problem !== undefined;
      },
      20_000,
      "the owner sees rg-1's clock problem",
    );
    expect(problem!.message).toMatch(/clock 30 days ahead/);
    expect(problem!.status).toBe('open');

    // Only an admin may release, and only with a correction that brings the reading back.
    const body = { siteId: 'maple-ridge', deviceId: 'rg-1', offsetSeconds: -30 * 86_400 };
    expect(
      (await api('POST', '/api/quarantine/release', body, { authorization: `Bearer ${ENGINEER}` })).status,
    ).toBe(403);
    const short = await api('POST', '/api/quarantine/release', { ...body, offsetSeconds: -3600 }, admin);
    expect(short.body).toMatchObject({ released: 0, stillAhead: 1, changeId: null });
    const res = await api('POST', '/api/quarantine/release', body, admin);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ released: 1, stored: 1, stillAhead: 0 });
    expect(typeof res.body.logIndex).toBe('number');

    // Stored at the corrected time and evaluated by the rules there: the storm crosses its threshold then.
    const stored = await readings('rg-1');
    expect(stored.map((r) => Date.parse(r.ts)).sort()).toEqual([now - 10 * 60_000, late, now - 60_000]);
    let storms: Array<{ thresholdAt?: string; qualified: boolean }> = [];
    await waitFor(
      async () => {
        storms = (await api('GET', '/api/storms?siteId=maple-ridge&from=2020-01-01T00:00:00Z'))
          .body as unknown as typeof storms;
        return storms.some((s) => s.qualified);
      },
      20_000,
      'the released reading makes a storm',
    );
    expect(Date.parse(storms.find((s) => s.qualified)!.thresholdAt!)).toBe(late);

    // The change record: who, and the offset.
    const changes = (await api('GET', '/api/changes?siteId=maple-ridge', undefined, admin))
      .body as unknown as Array<{
      id: number;
      entity: string;
      action: string;
      by: string;
      deviceId: string;
      new: { offsetSeconds: number; ids: number[] };
      logIndex: number;
    }>;
    const rec = changes.find((ch) => ch.entity === 'quarantine');
    expect(rec).toMatchObject({ action: 'release', by: 'Ada Admin', deviceId: 'rg-1' });
    expect(rec!.new.offsetSeconds).toBe(-30 * 86_400);
    expect(rec!.new.ids).toEqual([q.items[0]!.id]);
    expect(rec!.logIndex).toBe(res.body.logIndex);
    const after = await quarantine('&deviceId=rg-1');
    expect(after.items[0]).toMatchObject({
      status: 'released',
      outcome: 'stored',
      releasedBy: 'Ada Admin',
      offsetSeconds: -30 * 86_400,
      changeId: rec!.id,
    });
    // The problem is resolved by the correction.
    const resolved = (await api('GET', `/api/alerts/${problem!.id}`)).body as unknown as Alert;
    expect(resolved.status).toBe('resolved');
  }, 90_000);

  it('keeps the messages of a device not registered yet, shows it waiting to be added, and releases them when it is added', async () => {
    const c = connect({ clientId: 'field-gauge-9', clean: false });
    const now = Date.now();
    for (let i = 0; i < 3; i++)
      await c.publishAsync(T('rg-9'), JSON.stringify({ ts: now - (5 - i) * 60_000, seq: i, rainTips: i }), {
        qos: 1,
      });
    const q = await quarantine('&deviceId=rg-9');
    expect(q.devices).toEqual([
      expect.objectContaining({ deviceId: 'rg-9', reason: 'unregistered_device', waiting: 3 }),
    ]);
    expect(q.items.every((i) => /not registered/.test(i.why))).toBe(true);
    // Not a device of the site yet: no readings of it.
    expect((await api('GET', '/api/telemetry?siteId=maple-ridge&deviceId=rg-9&from=0')).status).toBe(404);

    const added = await api(
      'POST',
      '/api/sites/maple-ridge/devices',
      { id: 'rg-9', kind: 'rain-gauge', inchesPerTip: 0.01 },
      admin,
    );
    expect(added.status).toBe(201);
    await waitFor(
      async () => ((await readings('rg-9')) ?? []).length === 3,
      20_000,
      "rg-9's three readings stored",
    );
    const after = await quarantine('&deviceId=rg-9');
    expect(after.devices).toEqual([]);
    expect(after.items.map((i) => [i.status, i.outcome, i.releasedBy])).toEqual(
      Array(3).fill(['released', 'stored', 'Ada Admin']),
    );
  }, 60_000);

  it(`keeps at most ${CAP} messages of one client waiting; beyond, they are refused and counted`, async () => {
    const o = await new Promise<MqttClient>((resolve, reject) => {
      const c = mqtt.connect(gw.mqttUrl, { clientId: 'field-gauge-8', reconnectPeriod: 0 });
      c.once('connect', () => resolve(c));
      c.once('error', reject);
    });
    clients.push(o);
    o.on('error', () => {});
    const outcomes: string[] = [];
    for (let i = 0; i < CAP + 1; i++)
      outcomes.push(await publishOutcome(o, T('rg-8'), JSON.stringify({ seq: i, rainTips: i })));
    expect(outcomes).toEqual([...Array(CAP).fill('acknowledged'), 'closed']);
    const q = await quarantine('&deviceId=rg-8');
    expect(q.devices).toEqual([expect.objectContaining({ deviceId: 'rg-8', waiting: CAP })]);
    const m = await metrics(gw.httpUrl);
    expect(metricValue(m, 'gateway_refused_total', 'reason="quarantine_full"')).toBe(1);
    expect(
      metricValue(m, 'gateway_quarantined_total', 'reason="unregistered_device"'),
    ).toBeGreaterThanOrEqual(3 + CAP);
  }, 60_000);
});

describe('quarantine of serial lines (gateway process, socat pseudo-terminals)', () => {
  let gw: GatewayChild;
  let pair: PtyPair;
  beforeAll(async () => {
    if (IN_CI) expect(haveBinary('socat'), 'socat is needed in CI').toBe(true);
  });
  afterAll(async () => {
    await gw?.cleanup();
    await pair?.stop();
  });

  it.runIf(haveBinary('socat'))(
    'keeps a line stamped 30 days ahead, stores the lines around it, and releases it with a correction',
    async () => {
      const dir = await makeTempDir('gw-q-serial-');
      pair = await startPtyPair({ a: `${dir}/gw`, b: `${dir}/dev` });
      gw = await startGatewayChild(
        faultConfig({
          serial: [{ path: pair.a, baudRate: 9600, reopenMs: 200 }],
          auth: { tokens: [{ name: 'Ada Admin', role: 'admin', tokenSha256: sha(ADMIN) }] },
        }),
      );
      const now = Date.now();
      const line = (seq: number, ts: number) =>
        frameWithCrc(
          JSON.stringify({ siteId: 'maple-ridge', deviceId: 'trap-1', ts, seq, sedimentIn: 2 + seq / 10 }),
        );
      const w = await openPtyWriter(pair.b);
      await w.write(
        `${line(1, now - 120_000)}\n${line(2, now - 90_000 + 30 * DAY)}\n${line(3, now - 60_000)}\n`,
      );
      const stored = async () =>
        (
          (await (
            await fetch(
              `${gw.httpUrl}/api/telemetry?siteId=maple-ridge&deviceId=trap-1&from=0&to=2100-01-01T00:00:00Z`,
            )
          ).json()) as { readings: Array<{ seq?: number; ts: string }> }
        ).readings;
      await waitFor(async () => (await stored()).length === 2, 20_000, 'two serial readings stored');
      const q = (await (await fetch(`${gw.httpUrl}/api/quarantine?deviceId=trap-1`)).json()) as QList;
      expect(q.items).toEqual([
        expect.objectContaining({ transport: 'serial', reason: 'future_timestamp', status: 'waiting' }),
      ]);
      const res = await fetch(`${gw.httpUrl}/api/quarantine/release`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN}` },
        body: JSON.stringify({ siteId: 'maple-ridge', deviceId: 'trap-1', offsetSeconds: -30 * 86_400 }),
      });
      expect(await res.json()).toMatchObject({ released: 1, stored: 1 });
      const all = await stored();
      expect(all.map((r) => r.seq)).toEqual([1, 2, 3]);
      expect(Date.parse(all[1]!.ts)).toBe(now - 90_000);
      await w.close();
    },
    60_000,
  );
});
