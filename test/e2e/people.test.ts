/**
 * People against the real gateway: signing in (session cookie flags, CSRF refusal of a cross-site write),
 * personal tokens (shown once, hashed in the store, expired and revoked ones refused), an owner who sees
 * only their system (another's is a 404), history entries that name the person and the token, sign-in
 * throttling per account and per address, and the one-time link that creates the first admin.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const ADMIN = 'tok-admin';
const PASSWORD = 'correct horse battery';

interface Alert {
  id: string;
  siteId: string;
  rule: string;
  status: string;
  history: Array<{ action: string; actor: string; detail?: Record<string, unknown> }>;
}

/** A signed-in browser: its cookies and CSRF token. */
interface Browser {
  cookie: string;
  csrf: string;
  setCookie: string[];
}

describe('people: sessions, tokens, scopes and named actions', () => {
  let gw: TestGateway;
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${gw.httpUrl}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      body: (text ? JSON.parse(text) : {}) as Record<string, unknown>,
    };
  };
  const admin = { authorization: `Bearer ${ADMIN}` };
  const signIn = async (email: string, password = PASSWORD): Promise<Browser> => {
    const r = await call('POST', '/api/auth/login', { email, password });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const setCookie = r.headers.getSetCookie();
    const cookie = setCookie.map((c) => c.split(';')[0]).join('; ');
    return { cookie, csrf: String(r.body.csrfToken), setCookie };
  };
  const as = (b: Browser) => ({ cookie: b.cookie, 'x-csrf-token': b.csrf });

  beforeAll(async () => {
    gw = await startTestGateway({
      auth: { tokens: [{ name: 'Ada Admin', role: 'admin', tokenSha256: sha(ADMIN) }] },
    });
    for (const u of [
      { name: 'Ida Inspector', email: 'ida@town.example', role: 'inspector', sites: [] },
      { name: 'Olive Owner', email: 'olive@oak.example', role: 'owner', sites: ['oak-lane'] },
      { name: 'Tom Throttled', email: 'tom@town.example', role: 'viewer', sites: [] },
    ])
      expect((await call('POST', '/api/users', { ...u, password: PASSWORD }, admin)).status).toBe(201);
    // A storm at maple-ridge and a pump alarm at oak-lane, still on.
    const t0 = Date.now() - 3_600_000;
    const rg = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
    });
    for (let i = 0; i <= 60; i++)
      await rg.publishAsync(
        'sites/maple-ridge/devices/rg-1/telemetry',
        JSON.stringify({ ts: t0 + i * 60_000, seq: i, rainTips: i }),
        { qos: 1 },
      );
    await rg.endAsync();
    const panel = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'oak-lane/panel-1',
      username: 'oak-lane/panel-1',
      password: 'pw-panel-1',
    });
    for (let i = 0; i <= 3; i++)
      await panel.publishAsync(
        'sites/oak-lane/devices/panel-1/telemetry',
        JSON.stringify({ ts: t0 + i * 60_000, seq: i, alarms: { pump: true } }),
        { qos: 1 },
      );
    await panel.endAsync();
    await waitFor(
      async () => ((await call('GET', '/api/alerts')).body as unknown as Alert[]).length >= 2,
      15_000,
      'a storm alert and a pump alarm',
    );
  });
  afterAll(async () => gw?.cleanup());

  it('signs in to an HttpOnly, SameSite=Strict session cookie; a write needs the CSRF token and the same site', async () => {
    const ida = await signIn('IDA@town.example');
    const session = ida.setCookie.find((c) => c.startsWith('gw_session='))!;
    expect(session).toMatch(/HttpOnly/i);
    expect(session).toMatch(/SameSite=Strict/i);
    expect(session).not.toMatch(/Secure/i); // plain HTTP here; over HTTPS it is Secure
    const me = await call('GET', '/api/auth/me', undefined, { cookie: ida.cookie });
    expect(me.body).toMatchObject({ name: 'Ida Inspector', role: 'inspector', sites: null, via: 'session' });

    const storm = ((await call('GET', '/api/alerts?rule=storm-inspection')).body as unknown as Alert[])[0]!;
    // The cookie alone (a form on another site would send no token): refused.
    const forged = await call('POST', `/api/alerts/${storm.id}/ack`, {}, { cookie: ida.cookie });
    expect(forged.status).toBe(403);
    expect(forged.body.error).toBe('CSRF');
    const crossSite = await call(
      'POST',
      `/api/alerts/${storm.id}/ack`,
      {},
      { ...as(ida), origin: 'https://evil.example' },
    );
    expect(crossSite.status).toBe(403);
    expect(crossSite.body.error).toBe('CSRF');
    const ok = await call('POST', `/api/alerts/${storm.id}/ack`, { note: 'on my way' }, as(ida));
    expect(ok.status).toBe(200);
    // The history names the person.
    const a = (await call('GET', `/api/alerts/${storm.id}`)).body as unknown as Alert;
    expect(a.history.find((h) => h.action === 'acknowledged')?.actor).toBe('Ida Inspector');

    expect((await call('POST', '/api/auth/logout', {}, as(ida))).status).toBe(200);
    expect((await call('GET', '/api/auth/me', undefined, { cookie: ida.cookie })).status).toBe(401);
  });

  it('a personal token is shown once, kept hashed, names its person and itself, and stops when revoked or expired', async () => {
    const ida = await signIn('ida@town.example');
    const made = await call('POST', '/api/tokens', { name: 'field-tablet' }, as(ida));
    expect(made.status).toBe(201);
    const token = String(made.body.token);
    expect(token).toMatch(/^gwt_/);
    const listed = (await call('GET', '/api/tokens', undefined, as(ida))).body as unknown as Array<
      Record<string, unknown>
    >;
    expect(listed.map((t) => t.name)).toEqual(['field-tablet']);
    expect(JSON.stringify(listed)).not.toContain(token);
    const db = new Database(join(gw.dataDir, 'gateway.db'), { readonly: true });
    const rows = db.prepare('SELECT token_sha256 FROM api_tokens').all() as Array<{ token_sha256: string }>;
    db.close();
    expect(rows.map((r) => r.token_sha256)).toContain(sha(token));

    const bearer = { authorization: `Bearer ${token}` };
    const storm = ((await call('GET', '/api/alerts?rule=storm-inspection')).body as unknown as Alert[])[0]!;
    const res = await call(
      'POST',
      `/api/alerts/${storm.id}/resolve`,
      { note: 'inspected, fence repaired' },
      bearer,
    );
    expect(res.status).toBe(200);
    const a = (await call('GET', `/api/alerts/${storm.id}`)).body as unknown as Alert;
    expect(a.history.find((h) => h.action === 'resolved')?.actor).toBe('Ida Inspector (token: field-tablet)');

    expect((await call('DELETE', `/api/tokens/${String(made.body.id)}`, undefined, as(ida))).status).toBe(
      200,
    );
    expect((await call('GET', '/api/auth/me', undefined, bearer)).status).toBe(401);

    const soon = await call(
      'POST',
      '/api/tokens',
      { name: 'short', expiresAt: new Date(Date.now() + 1500).toISOString() },
      as(ida),
    );
    const shortBearer = { authorization: `Bearer ${String(soon.body.token)}` };
    expect((await call('GET', '/api/auth/me', undefined, shortBearer)).status).toBe(200);
    // Past the token's expiry: the time passing is the point.
    await new Promise((r) => setTimeout(r, 1700));
    expect((await call('GET', '/api/auth/me', undefined, shortBearer)).status).toBe(401);
  });

  it('an owner sees only their system: every list filtered, another site a 404', async () => {
    const olive = await signIn('olive@oak.example');
    const c = { cookie: olive.cookie };
    const sites = (await call('GET', '/api/sites', undefined, c)).body as unknown as Array<{ id: string }>;
    expect(sites.map((s) => s.id)).toEqual(['oak-lane']);
    expect((await call('GET', '/api/sites/maple-ridge', undefined, c)).status).toBe(404);
    const alerts = (await call('GET', '/api/alerts', undefined, c)).body as unknown as Alert[];
    expect(alerts.length).toBeGreaterThan(0);
    expect(alerts.every((a) => a.siteId === 'oak-lane')).toBe(true);
    expect((await call('GET', '/api/alerts?siteId=maple-ridge', undefined, c)).status).toBe(404);
    const storm = ((await call('GET', '/api/alerts?rule=storm-inspection')).body as unknown as Alert[])[0]!;
    expect((await call('GET', `/api/alerts/${storm.id}`, undefined, c)).status).toBe(404);
    expect((await call('POST', `/api/alerts/${storm.id}/ack`, {}, as(olive))).status).toBe(404);
    expect((await call('GET', '/api/storms', undefined, c)).body).toEqual([]);
    expect((await call('GET', '/api/telemetry?siteId=maple-ridge', undefined, c)).status).toBe(404);
    expect((await call('GET', '/api/reports/compliance?siteId=maple-ridge', undefined, c)).status).toBe(404);
    // The admin's pages are not an owner's.
    expect((await call('GET', '/api/users', undefined, c)).status).toBe(403);
  });

  it('resolving an alarm the device still reports as active needs confirmActive, and the history says so', async () => {
    const olive = await signIn('olive@oak.example');
    const pump = ((await call('GET', '/api/alerts?rule=equipment-remedy')).body as unknown as Alert[])[0]!;
    const refused = await call(
      'POST',
      `/api/alerts/${pump.id}/resolve`,
      { note: 'reset the breaker' },
      as(olive),
    );
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('STILL_ACTIVE');
    const ok = await call(
      'POST',
      `/api/alerts/${pump.id}/resolve`,
      { note: 'reset the breaker', confirmActive: true },
      as(olive),
    );
    expect(ok.status).toBe(200);
    const resolved = (ok.body as unknown as Alert).history.find((h) => h.action === 'resolved')!;
    expect(resolved.actor).toBe('Olive Owner');
    expect(JSON.stringify(resolved.detail)).toContain('resolvedWhileActive');
  });

  it('shuts a name after its own failures, and only delays an address', async () => {
    for (let i = 0; i < 3; i++)
      expect(
        (await call('POST', '/api/auth/login', { email: 'tom@town.example', password: 'wrong' })).status,
      ).toBe(401);
    const fourth = await call('POST', '/api/auth/login', { email: 'tom@town.example', password: 'wrong' });
    expect(fourth.status).toBe(401);
    // Shut now: even the right password is refused unchecked, with Retry-After.
    const shut = await call('POST', '/api/auth/login', { email: 'tom@town.example', password: PASSWORD });
    expect(shut.status).toBe(429);
    expect(Number(shut.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another account from the same address still may. Failures from one address, with made-up
    // names, only delay its answers (at most a second): a router's other users are never shut out.
    await signIn('ida@town.example');
    for (let i = 0; i < 10; i++)
      await call('POST', '/api/auth/login', { email: `nobody${i}@town.example`, password: 'wrong' });
    const started = Date.now();
    expect(
      (await call('POST', '/api/auth/login', { email: 'ida@town.example', password: PASSWORD })).status,
    ).toBe(200);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('first start with neither account nor token', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({}, { viewerToken: false });
  });
  afterAll(async () => gw?.cleanup());

  it('logs a one-time link that creates the first admin once', async () => {
    expect(gw.setupLink).toMatch(/\/setup\?code=/);
    const code = new URL(gw.setupLink!).searchParams.get('code')!;
    const page = await fetch(gw.setupLink!.replace(/^https?:\/\/[^/]+/, gw.httpUrl));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Create the first admin');
    const body = { code, name: 'Ada Admin', email: 'ada@town.example', password: PASSWORD };
    const post = (b: unknown) =>
      fetch(`${gw.httpUrl}/api/setup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(b),
      });
    const first = await post(body);
    expect(first.status).toBe(201);
    const again = await post({ ...body, email: 'eve@evil.example' });
    expect(again.status).toBe(410);
    const login = await fetch(`${gw.httpUrl}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ada@town.example', password: PASSWORD }),
    });
    expect(((await login.json()) as { role: string }).role).toBe('admin');
  });
});
