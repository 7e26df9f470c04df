/**
 * The doors rights come through, against the gateway process: a token cannot make one that outlives it
 * (refused in plain words; a default expiry is cut to its own); an Authorization header that is not a
 * working bearer token is a 401, never a fall-through to the session cookie and around its CSRF check; a
 * first-admin setup code is void after a restart with GATEWAY_ADMIN_TOKEN and once an admin exists; and
 * `npm run verify` reads a gateway whose reads are behind a sign-in with --token or GATEWAY_TOKEN, and
 * without one says so in one line.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayChild, startGatewayChild } from '../helpers/child.ts';
import { waitFor } from '../helpers/env.ts';
import { faultConfig } from '../helpers/faults.ts';
import { PASSWORD, peopleApi, signedInGateway } from '../helpers/people.ts';

const ROOT = join(import.meta.dirname, '../..');
const ADMIN = 'doors-admin-token';
const DAY = 86_400_000;

/** `npm run verify` as its own process: exit code, stdout, stderr. */
const verifyCli = (args: string[], env: Record<string, string> = {}) =>
  new Promise<{ code: number; out: string; err: string }>((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'gateway/src/tools/verify.ts', ...args],
      { cwd: ROOT, env: { ...process.env, GATEWAY_TOKEN: '', ...env }, timeout: 120_000 },
      (e, out, err) => resolve({ code: e ? Number(e.code ?? -1) : 0, out, err }),
    );
  });

describe('tokens, Authorization headers and verify, with reads behind a sign-in', {
  timeout: 240_000,
}, () => {
  let gw: GatewayChild;
  let api: ReturnType<typeof peopleApi>;
  const dir = mkdtempSync(join(tmpdir(), 'rights-doors-'));

  beforeAll(async () => {
    gw = await signedInGateway(ADMIN);
    api = peopleApi(gw.httpUrl, ADMIN);
    await api.account('Mia Minter', 'mia@town.example', 'inspector');
  }, 120_000);
  afterAll(async () => {
    await gw?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a token cannot make one that outlives it', async () => {
    const mia = await api.signIn('mia@town.example');
    const day = await api.token(mia, 'one day', Date.now() + DAY);
    const dayEnds = Date.parse(day.expiresAt);
    const byDay = { authorization: `Bearer ${day.token}` };
    const count = async () =>
      ((await api.call('GET', '/api/tokens', undefined, mia.write)).body as unknown as []).length;
    const before = await count();

    const longer = await api.call(
      'POST',
      '/api/tokens',
      { name: 'two years', expiresAt: new Date(Date.now() + 729 * DAY).toISOString() },
      byDay,
    );
    expect(longer.status).toBe(400);
    expect(String(longer.body.message)).toMatch(/can only make tokens that end no later than it does/);
    expect(String(longer.body.message)).toContain(new Date(dayEnds).toISOString().slice(0, 16));
    expect(await count()).toBe(before);

    // Without an expiry asked for, the 90-day default is cut to the day the token it is made with ends.
    const dflt = await api.call('POST', '/api/tokens', { name: 'default' }, byDay);
    expect(dflt.status).toBe(201);
    expect(Date.parse(String(dflt.body.expiresAt))).toBeLessThanOrEqual(dayEnds);
    // A session (a password) may make one for up to two years.
    const long = await api.token(mia, 'two years', Date.now() + 729 * DAY);
    expect(Date.parse(long.expiresAt)).toBeGreaterThan(Date.now() + 728 * DAY);
  });

  it('an Authorization header that is not a working bearer token is a 401, never the cookie', async () => {
    const mia = await api.signIn('mia@town.example');
    const count = async () =>
      ((await api.call('GET', '/api/tokens', undefined, mia.write)).body as unknown as []).length;
    const before = await count();
    // A cookie write without its CSRF token, with a Basic header beside it.
    const basic = await api.call(
      'POST',
      '/api/tokens',
      { name: 'by basic' },
      { cookie: mia.cookie, authorization: 'Basic x' },
    );
    expect(basic.status).toBe(401);
    expect(String(basic.body.message)).toMatch(/must be "Bearer" followed by an API token/);
    // A wrong bearer token beside a good cookie and CSRF token: refused, not taken as the cookie's person.
    const wrong = await api.call(
      'POST',
      '/api/tokens',
      { name: 'by wrong' },
      { ...mia.write, authorization: 'Bearer nope' },
    );
    expect(wrong.status).toBe(401);
    expect(String(wrong.body.message)).toMatch(/token does not work/);
    const read = await api.call('GET', '/api/sites', undefined, {
      cookie: mia.cookie,
      authorization: 'Basic x',
    });
    expect(read.status).toBe(401);
    expect(await count()).toBe(before);
    // The cookie with its CSRF token alone still writes.
    expect((await api.call('POST', '/api/tokens', { name: 'by cookie' }, mia.write)).status).toBe(201);
  });

  it('npm run verify reads the gateway with --token or GATEWAY_TOKEN, and without one says so in one line', async () => {
    const rg = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
    });
    for (let i = 0; i < 5; i++)
      await rg.publishAsync(
        'sites/maple-ridge/devices/rg-1/telemetry',
        JSON.stringify({ seq: i, rainTips: i }),
        { qos: 1 },
      );
    await rg.endAsync();
    const report = await api.call(
      'GET',
      '/api/reports/compliance?siteId=maple-ridge&from=2020-01-01',
      undefined,
      api.admin,
    );
    expect(report.status).toBe(200);
    const file = join(dir, 'report.json');
    writeFileSync(file, JSON.stringify(report.body));
    const key = String((await api.call('GET', '/api/evidence/key', undefined, api.admin)).body.verifierKey);
    const args = [file, '--key', key, '--api', gw.httpUrl];

    const none = await verifyCli(args);
    expect(none.code).toBe(2);
    expect(none.err.trim().split('\n')).toHaveLength(1);
    expect(none.err).toMatch(
      /needs an API token to answer \(HTTP 401 .*give one with --token TOKEN or GATEWAY_TOKEN/,
    );
    expect(none.err).not.toMatch(/\n\s+at /);
    const wrong = await verifyCli([...args, '--token', 'not-a-token']);
    expect(wrong.code).toBe(2);
    expect(wrong.err.trim().split('\n')).toHaveLength(1);
    expect(wrong.err).toMatch(/refused the token \(HTTP 401/);

    const withToken = await verifyCli([...args, '--token', ADMIN]);
    expect(withToken.out, withToken.err).toMatch(/extends the report's checkpoint/);
    expect(withToken.out).toMatch(/^verified$/m);
    expect(withToken.code).toBe(0);
    const fromEnv = await verifyCli(args, { GATEWAY_TOKEN: ADMIN });
    expect(fromEnv.out, fromEnv.err).toMatch(/^verified$/m);
    expect(fromEnv.code).toBe(0);
  });
});

describe('a first-admin setup code', { timeout: 240_000 }, () => {
  const gateways: GatewayChild[] = [];
  afterAll(async () => {
    for (const g of gateways.reverse()) await g.cleanup();
  });
  const start = async (dataDir?: string, env: Record<string, string> = {}) => {
    const g = await startGatewayChild(faultConfig(), {
      ...(dataDir ? { dataDir } : {}),
      env,
      viewerToken: false,
    });
    gateways.push(g);
    return g;
  };
  const setup = (g: GatewayChild, code: string, email: string) =>
    fetch(`${g.httpUrl}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code, name: email, email, password: PASSWORD }),
    });

  it('is void after a restart with GATEWAY_ADMIN_TOKEN, and stays void once an admin exists', async () => {
    const first = await start();
    const link = await waitFor(
      () => /(http:\/\/\S+\/setup\?code=[\w-]+)/.exec(first.output())?.[1],
      30_000,
      'the first-admin link in the log',
    );
    const code = new URL(link).searchParams.get('code')!;
    expect((await fetch(`${first.httpUrl}/setup?code=${code}`)).status).toBe(200);
    await first.stop();

    const withToken = await start(first.dataDir, { GATEWAY_ADMIN_TOKEN: ADMIN });
    expect((await setup(withToken, code, 'eve@evil.example')).status).toBe(410);
    expect((await fetch(`${withToken.httpUrl}/setup?code=${code}`)).status).toBe(410);
    // Reads need a sign-in or a token: without a header they are refused, with the admin's token they
    // answer, and with a header that is not a bearer they do not.
    expect((await fetch(`${withToken.httpUrl}/api/sites`)).status).toBe(401);
    const bearer = { authorization: `Bearer ${ADMIN}` };
    expect((await fetch(`${withToken.httpUrl}/api/sites`, { headers: bearer })).status).toBe(200);
    const basic = await fetch(`${withToken.httpUrl}/api/sites`, { headers: { authorization: 'Basic x' } });
    expect(basic.status).toBe(401);
    const api = peopleApi(withToken.httpUrl, ADMIN);
    expect((await api.call('GET', '/api/users', undefined, api.admin)).body).toEqual([]);
    // The town's admin makes the first admin account with the token.
    await api.account('Ada Admin', 'ada@town.example', 'admin');
    await withToken.stop();

    // Started again without the token: an admin exists, so the old code still creates nobody.
    const again = await start(first.dataDir);
    expect(again.output()).not.toMatch(/setup\?code=/);
    const eve = await setup(again, code, 'eve@evil.example');
    expect(eve.status).toBe(410);
    expect(((await eve.json()) as { message: string }).message).toMatch(/used up, expired or wrong/);
    const ada = peopleApi(again.httpUrl, 'none');
    const users = await ada.call(
      'GET',
      '/api/users',
      undefined,
      (await ada.signIn('ada@town.example')).write,
    );
    expect((users.body as unknown as Array<{ email: string }>).map((u) => u.email)).toEqual([
      'ada@town.example',
    ]);
  });
});
