/**
 * Sites and devices managed live, against the real gateway: an admin adds a site and a rain gauge through
 * the API, the gauge logs in with its new secret and a storm on it raises a storm-inspection alert, with
 * no restart; rotating the secret locks the old one out at once (its live session too); a calibration
 * change mid-storm counts each reading at its own calibration; every change is a record in the log.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReportJson, verifyReport } from '../../gateway/src/verifier/verify.ts';
import { waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const ADMIN = 'tok-admin';

interface Alert {
  id: string;
  siteId: string;
  rule: string;
  status: string;
}
interface Storm {
  siteId: string;
  deviceId: string;
  tips: number;
  inches: number;
  qualified: boolean;
}
interface Change {
  entity: string;
  action: string;
  by: string;
  siteId: string | null;
  deviceId: string | null;
  old: unknown;
  new: unknown;
  effectiveAt: string;
  logIndex: number;
  leafHash: string;
}

describe('sites and devices managed live through the API', () => {
  let gw: TestGateway;
  const api = async (method: string, path: string, body?: unknown, token = ADMIN) => {
    const res = await fetch(`${gw.httpUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const connect = (username: string, password: string) =>
    mqtt.connectAsync(gw.mqttUrl, { clientId: username, username, password, reconnectPeriod: 0 });
  const refused = async (username: string, password: string) => {
    try {
      const c = await connect(username, password);
      await c.endAsync();
      return false;
    } catch (e) {
      return /Bad username or password|Not authorized|connack/i.test(String(e));
    }
  };

  beforeAll(async () => {
    gw = await startTestGateway({
      auth: { tokens: [{ name: 'Ada Admin', role: 'admin', tokenSha256: sha(ADMIN) }] },
    });
  });
  afterAll(async () => gw?.cleanup());

  it('adds a site and a gauge; the gauge logs in with its new secret and its storm raises an alert', async () => {
    const site = await api('POST', '/api/sites', {
      id: 'birch-hill',
      name: 'Birch Hill lots',
      kind: 'construction',
      timezone: 'America/New_York',
      storm: { thresholdIn: 0.5 },
    });
    expect(site.status).toBe(201);
    expect(site.body).toMatchObject({ id: 'birch-hill', name: 'Birch Hill lots', devices: [] });
    const dev = await api('POST', '/api/sites/birch-hill/devices', {
      id: 'rg-9',
      kind: 'rain-gauge',
      inchesPerTip: 0.01,
    });
    expect(dev.status).toBe(201);
    expect(dev.body.username).toBe('birch-hill/rg-9');
    expect(typeof dev.body.password).toBe('string');
    // The secret is kept as its scrypt hash only.
    const db = new Database(join(gw.dataDir, 'gateway.db'), { readonly: true });
    const hashes = db
      .prepare("SELECT password_hash FROM device_secrets WHERE site_id = 'birch-hill'")
      .all() as Array<{
      password_hash: string;
    }>;
    db.close();
    expect(hashes).toHaveLength(1);
    expect(hashes[0]!.password_hash).toMatch(/^scrypt\$/);
    expect(hashes[0]!.password_hash).not.toContain(String(dev.body.password));

    const c = await connect('birch-hill/rg-9', String(dev.body.password));
    const t0 = Date.now() - 2 * 3_600_000;
    for (let i = 0; i <= 60; i++)
      await c.publishAsync(
        'sites/birch-hill/devices/rg-9/telemetry',
        JSON.stringify({ ts: t0 + i * 60_000, seq: i, rainTips: i }),
        { qos: 1 },
      );
    await c.endAsync();
    const alerts = await waitFor(
      async () => {
        const a = (await api('GET', '/api/alerts?siteId=birch-hill')).body as unknown as Alert[];
        return a.some((x) => x.rule === 'storm-inspection') ? a : undefined;
      },
      15_000,
      'the storm alert of the new gauge',
    );
    // The new construction site also starts its 7-day routine clock, and asks for the developer's records
    // (no contractor's certification, no SWPPP on file), at the scheduler's next tick, which may come
    // before or after the storm: either way those are all it raises.
    const rules = alerts.map((a) => a.rule);
    expect(rules.filter((r) => r === 'storm-inspection')).toHaveLength(1);
    const others = ['storm-inspection', 'routine-inspection', 'contractor-certification', 'swppp-on-site'];
    expect(rules.filter((r) => !others.includes(r))).toEqual([]);
  });

  it('rotating the secret locks the old one out at once and ends the live session', async () => {
    const dev = await api('POST', '/api/sites/birch-hill/devices', {
      id: 'rg-10',
      kind: 'rain-gauge',
      inchesPerTip: 0.01,
    });
    const old = String(dev.body.password);
    const live = await connect('birch-hill/rg-10', old);
    const closed = new Promise<void>((r) => live.once('close', () => r()));
    const rot = await api('POST', '/api/sites/birch-hill/devices/rg-10/secret');
    expect(rot.status).toBe(200);
    const fresh = String(rot.body.password);
    expect(fresh).not.toBe(old);
    await closed;
    await live.endAsync(true);
    expect(await refused('birch-hill/rg-10', old)).toBe(true);
    const again = await connect('birch-hill/rg-10', fresh);
    await again.endAsync();
  });

  it('a calibration change mid-storm counts each reading at its own calibration', async () => {
    const dev = await api('POST', '/api/sites/birch-hill/devices', {
      id: 'rg-11',
      kind: 'rain-gauge',
      inchesPerTip: 0.01,
    });
    const t0 = Date.now() - 3 * 3_600_000;
    const c = await connect('birch-hill/rg-11', String(dev.body.password));
    const send = async (from: number, to: number) => {
      for (let i = from; i <= to; i++)
        await c.publishAsync(
          'sites/birch-hill/devices/rg-11/telemetry',
          JSON.stringify({ ts: t0 + i * 60_000, seq: i, rainTips: i }),
          { qos: 1 },
        );
    };
    // 30 tips at 0.01 in, then the gauge is found to count 0.02 in a tip from minute 30 on: 30 more tips.
    await send(0, 30);
    const cal = await api('PATCH', '/api/sites/birch-hill/devices/rg-11', {
      inchesPerTip: 0.02,
      effectiveAt: new Date(t0 + 30 * 60_000 + 30_000).toISOString(),
    });
    expect(cal.status).toBe(200);
    await send(31, 60);
    await c.endAsync();
    const storm = await waitFor(
      async () => {
        const s = (await api('GET', '/api/storms?siteId=birch-hill')).body as unknown as Storm[];
        return s.find((x) => x.deviceId === 'rg-11' && x.tips === 60);
      },
      15_000,
      'the storm of rg-11',
    );
    expect(storm.inches).toBeCloseTo(0.3 + 0.6, 6);
    expect(storm.qualified).toBe(true);

    const changes = (await api('GET', '/api/changes?siteId=birch-hill')).body as unknown as Change[];
    const calibrate = changes.find((x) => x.action === 'calibrate')!;
    expect(calibrate).toMatchObject({
      entity: 'device',
      by: 'Ada Admin',
      deviceId: 'rg-11',
      old: { inchesPerTip: 0.01 },
      new: { inchesPerTip: 0.02 },
      effectiveAt: new Date(t0 + 30 * 60_000 + 30_000).toISOString(),
    });
    // Each change is an entry of the evidence log, its body as listed.
    const entries = (await (
      await fetch(
        `${gw.httpUrl}/api/evidence/entries?from=${calibrate.logIndex}&to=${calibrate.logIndex + 1}`,
      )
    ).json()) as Array<{ kind: string; leaf: string; body: string }>;
    expect(entries[0]).toMatchObject({ kind: 'change', leaf: calibrate.leafHash });
    expect(JSON.parse(entries[0]!.body)).toMatchObject({
      type: 'change',
      action: 'calibrate',
      by: 'Ada Admin',
    });

    // The compliance report lists the change in its period, cites its entry, and verifies offline: the
    // storm's depth is checked reading by reading against the calibrations its record carries.
    const day = (t: number) => new Date(t).toLocaleDateString('en-CA', { timeZone: 'America/New_York' });
    const res = await fetch(
      `${gw.httpUrl}/api/reports/compliance?siteId=birch-hill&from=${day(t0 - 86_400_000)}&to=${day(Date.now() + 86_400_000)}&format=json`,
    );
    const report = (await res.json()) as ReportJson & { changes: Change[] };
    expect(report.changes.map((x) => x.action)).toContain('calibrate');
    const key = ((await (await fetch(`${gw.httpUrl}/api/evidence/key`)).json()) as { verifierKey: string })
      .verifierKey;
    expect((await verifyReport(report, key)).problems).toEqual([]);
    // A report whose change says another calibration than the logged one fails.
    const forged = structuredClone(report);
    forged.changes.find((x) => x.action === 'calibrate')!.new = { inchesPerTip: 0.01 };
    expect((await verifyReport(forged, key)).problems.map((p) => p.field)).toContain('changes[0].new');
  });

  it('retires a device: it can no longer log in, its history stays', async () => {
    const dev = await api('POST', '/api/sites/birch-hill/devices', {
      id: 'rg-12',
      kind: 'rain-gauge',
      inchesPerTip: 0.01,
    });
    const r = await api('PATCH', '/api/sites/birch-hill/devices/rg-12', { retired: true });
    expect(r.status).toBe(200);
    expect(await refused('birch-hill/rg-12', String(dev.body.password))).toBe(true);
    const site = (await api('GET', '/api/sites/birch-hill')).body as {
      devices: Array<{ id: string }>;
      retiredDevices: string[];
    };
    expect(site.devices.map((d) => d.id)).not.toContain('rg-12');
    expect(site.retiredDevices).toContain('rg-12');
    // The id is not given again.
    expect(
      (
        await api('POST', '/api/sites/birch-hill/devices', {
          id: 'rg-12',
          kind: 'rain-gauge',
          inchesPerTip: 0.01,
        })
      ).status,
    ).toBe(409);
  });

  it('refuses what the configuration would refuse, with the path, and writes without the admin role', async () => {
    const bad = await api('POST', '/api/sites/birch-hill/devices', { id: 'rg-13', kind: 'rain-gauge' });
    expect(bad.status).toBe(400);
    expect(String(bad.body.message)).toMatch(/inchesPerTip/);
    expect((await api('POST', '/api/sites', { id: 'x', kind: 'construction' }, 'wrong')).status).toBe(401);
    expect((await api('PATCH', '/api/sites/nowhere', { name: 'n' })).status).toBe(404);
  });
});
