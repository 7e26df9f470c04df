/**
 * The public view (`http.publicView: true`): a visitor who is not signed in sees what a neighbour may
 * (sites, duties' states, storms, charts, readings, the rules), never a party's name, postal or e-mail
 * address, a photo, an inspection, a notice or a report. The former `authenticateReads: false` means it.
 */
import { createHash } from 'node:crypto';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC_VIEW_ROUTES } from '../../gateway/src/api/publicView.ts';
import { parseConfig } from '../../gateway/src/config/load.ts';
import { publicViewOn } from '../../gateway/src/config/sections.ts';
import { ROUTES } from '../../shared/src/api/routes.ts';
import { waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway, testConfigInput } from '../helpers/gateway.ts';
import { fetchAnonymous } from '../helpers/viewerFetch.ts';

const INSPECTOR = 'public-view-inspector-token';
const PRIVATE = {
  landowner: { name: 'Lena Landowner', address: '4 Hidden Way, Chester NY', email: 'lena@owner.example' },
  developer: { name: 'Dario Developer LLC', address: '99 Builder Plaza', email: 'dario@dev.example' },
  address: '1 Maple Ridge Road',
  practices: [{ id: 'fence-north', label: 'Silt fence, north boundary', kind: 'silt-fence' as const }],
};
/** Words only the private view holds: the parties, the site's address, the practice, who acknowledged. */
const SECRETS = [
  'Lena Landowner',
  'lena@owner.example',
  '4 Hidden Way',
  'Dario Developer',
  'dario@dev.example',
  '99 Builder Plaza',
  '1 Maple Ridge Road',
  'Silt fence, north boundary',
  'Ida Inspector',
  'Checked the gauge',
];

/** What the public view answers without credentials. */
const PUBLIC = new Set([
  'GET /api/sites',
  'GET /api/sites/:id',
  'GET /api/alerts',
  'GET /api/alerts/:id',
  'GET /api/storms',
  'GET /api/charts',
  'GET /api/telemetry',
  'GET /api/rules',
  'GET /api/evidence/key',
  'GET /api/health',
]);
/** Who is asking: nobody answers 401 from the sign-in routes too, by their own rule. */
const SIGN_IN = new Set(['GET /api/auth/me']);

function pathOf(key: string, alertId: string): string {
  const path = key.slice(4);
  const id = path.startsWith('/api/alerts/') ? alertId : 'maple-ridge';
  const filled = path.replace(':sha256', '0'.repeat(64)).replace(':id', id);
  return `${filled}?siteId=maple-ridge`;
}

describe('the public view (http.publicView: true)', () => {
  let gw: TestGateway;
  let alertId: string;
  const anon = (path: string) => fetchAnonymous(`${gw.httpUrl}${path}`);

  beforeAll(async () => {
    const sites = testConfigInput().sites!.map((s) => (s.id === 'maple-ridge' ? { ...s, ...PRIVATE } : s));
    gw = await startTestGateway({
      http: { publicView: true },
      sites,
      auth: {
        tokens: [
          {
            name: 'Ida Inspector',
            role: 'inspector',
            tokenSha256: createHash('sha256').update(INSPECTOR).digest('hex'),
          },
        ],
      },
    });
    // A 0.6 in storm an hour ago: a storm-inspection duty, acknowledged by a named inspector with a note.
    const t0 = Date.now() - 3_600_000;
    const c = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
    });
    for (let i = 0; i <= 60; i++)
      await c.publishAsync(
        'sites/maple-ridge/devices/rg-1/telemetry',
        JSON.stringify({ ts: t0 + i * 60_000, seq: i, rainTips: i }),
        { qos: 1 },
      );
    await c.endAsync();
    alertId = await waitFor(
      async () => {
        const list = (await (await fetch(`${gw.httpUrl}/api/alerts?rule=storm-inspection`)).json()) as Array<{
          id: string;
        }>;
        return list[0]?.id;
      },
      10_000,
      'the storm alert',
    );
    const ack = await fetch(`${gw.httpUrl}/api/alerts/${alertId}/ack`, {
      method: 'POST',
      headers: { authorization: `Bearer ${INSPECTOR}`, 'content-type': 'application/json' },
      body: JSON.stringify({ note: 'Checked the gauge' }),
    });
    expect(ack.status).toBe(200);
  });
  afterAll(async () => gw?.cleanup());

  it('shows the sites without their parties, address or practices; a viewer sees them', async () => {
    for (const path of ['/api/sites', '/api/sites/maple-ridge']) {
      const res = await anon(path);
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).toContain('maple-ridge');
      for (const s of SECRETS) expect(text).not.toContain(s);
      const signedIn = await (await fetch(`${gw.httpUrl}${path}`)).text();
      for (const s of SECRETS.slice(0, 8)) expect(signedIn).toContain(s);
    }
    const site = (await (await anon('/api/sites/maple-ridge')).json()) as Record<string, unknown>;
    for (const key of ['landowner', 'developer', 'address', 'practices', 'history', 'stopWork', 'appeal'])
      expect(site).not.toHaveProperty(key);
    expect((site.devices as unknown[]).length).toBe(3);
  });

  it("shows the duty's state and times, not who acknowledged it, its evidence or its history", async () => {
    const list = (await (await anon('/api/alerts?siteId=maple-ridge')).json()) as Array<
      Record<string, unknown>
    >;
    const one = (await (await anon(`/api/alerts/${alertId}`)).json()) as Record<string, unknown>;
    for (const a of [list.find((x) => x.id === alertId)!, one]) {
      expect(a.status).toBe('acknowledged');
      expect(a.rule).toBe('storm-inspection');
      expect(typeof a.dueAt).toBe('string');
      expect(a.history).toEqual([]);
      expect(a.evidence).toEqual({});
      expect(a).not.toHaveProperty('acknowledgedBy');
      for (const s of SECRETS) expect(JSON.stringify(a)).not.toContain(s);
    }
    const signedIn = (await (await fetch(`${gw.httpUrl}/api/alerts/${alertId}`)).json()) as {
      acknowledgedBy: string;
      history: unknown[];
    };
    expect(signedIn.acknowledgedBy).toBe('Ida Inspector');
    expect(JSON.stringify(signedIn.history)).toContain('Checked the gauge');
  });

  it('answers storms, charts, readings and the rules', async () => {
    for (const path of [
      '/api/storms?siteId=maple-ridge',
      '/api/charts?siteId=maple-ridge&range=day',
      '/api/telemetry?siteId=maple-ridge',
      '/api/rules',
    ]) {
      const res = await anon(path);
      expect(res.status, path).toBe(200);
      const text = await res.text();
      for (const s of SECRETS) expect(text, path).not.toContain(s);
    }
    const storms = (await (await anon('/api/storms?siteId=maple-ridge')).json()) as unknown[];
    expect(storms.length).toBe(1);
  });

  it('refuses every other read without credentials (inspections, photos, notices, reports, people, the log)', async () => {
    const refused: string[] = [];
    const open: string[] = [];
    for (const key of Object.keys(ROUTES).filter((k) => k.startsWith('GET '))) {
      if (PUBLIC.has(key)) continue;
      const res = await anon(pathOf(key, alertId));
      await res.body?.cancel();
      (res.status === 401 ? refused : open).push(`${key}: ${res.status}`);
    }
    expect(open.filter((o) => !SIGN_IN.has(o.split(':')[0]!))).toEqual([]);
    for (const k of [
      'GET /api/inspections',
      'GET /api/photos/:sha256',
      'GET /api/notices',
      'GET /api/reports/compliance',
      'GET /api/violations',
      'GET /api/sites/:id/records',
      'GET /api/users',
      'GET /api/evidence/entries',
      'GET /api/events',
      'GET /metrics',
    ])
      expect(refused.map((r) => r.split(': ')[0])).toContain(k);
  });

  it('is the list the gateway documents', () => {
    expect([...PUBLIC_VIEW_ROUTES].sort()).toEqual([...PUBLIC].sort());
  });

  it("answers /api/health's status alone, with the facts the dashboard's first page reads", async () => {
    expect(await (await anon('/api/health')).json()).toEqual({
      status: 'ok',
      publicView: true,
      timezone: 'America/New_York',
    });
  });
});

describe('the setting', () => {
  const http = (h: Record<string, unknown>) =>
    parseConfig({ ...testConfigInput(), dataDir: '/tmp/unused', http: h }).http;

  it('is off by default: every read needs a sign-in or a token', () => {
    expect(publicViewOn(http({}))).toBe(false);
    expect(publicViewOn(http({ authenticateReads: true }))).toBe(false);
  });

  it('reads the former authenticateReads: false as the public view, never as every record', () => {
    expect(publicViewOn(http({ authenticateReads: false }))).toBe(true);
    expect(publicViewOn(http({ publicView: true }))).toBe(true);
  });

  it('refuses authenticateReads: true with publicView: true, naming the setting', () => {
    expect(() => http({ authenticateReads: true, publicView: true })).toThrow(/http\.authenticateReads/);
  });
});
