/**
 * Point 5: rights that outlive their account. Against a gateway process: the live-feed events delivered
 * (by cookie and by token) in the 5 s after the account is disabled while a gauge publishes; whether a
 * personal token still works after an admin resets the password; the lifetime of a token minted with a
 * one-day token; what a setup code from the first start answers after a restart with GATEWAY_ADMIN_TOKEN;
 * and what a cookie write carrying `Authorization: Basic x` (no CSRF token) answers.
 */
import { createHash } from 'node:crypto';
import mqtt from 'mqtt';
import { openFeed } from '../helpers/sse.ts';
import { baseConfig, report, sleep, startChild, waitFor } from './support.ts';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const ADMIN = 'probe-admin-token';
const PASSWORD = 'correct horse battery';

const gw = await startChild(
  baseConfig({ auth: { tokens: [{ name: 'Ada Admin', role: 'admin', tokenSha256: sha(ADMIN) }] } }),
);
const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${gw.httpUrl}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown>, res };
};
const admin = { authorization: `Bearer ${ADMIN}` };
const person = async (email: string) => {
  const u = await call(
    'POST',
    '/api/users',
    { name: email, email, role: 'inspector', password: PASSWORD },
    admin,
  );
  const login = await call('POST', '/api/auth/login', { email, password: PASSWORD });
  const cookie = login.res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const browser = { cookie, 'x-csrf-token': String(login.body.csrfToken) };
  const t = await call('POST', '/api/tokens', { name: 'probe' }, browser);
  return { id: String(u.body.id), cookie, browser, token: String(t.body.token) };
};

// 1. Events delivered after the account is disabled.
const dora = await person('dora@town.example');
const byCookie = await openFeed(`${gw.httpUrl}/api/events`, { cookie: dora.cookie });
const byToken = await openFeed(`${gw.httpUrl}/api/events`, { authorization: `Bearer ${dora.token}` });
await call('PATCH', `/api/users/${dora.id}`, { disabled: true }, admin);
const disabledAt = Date.now();
const rg = await mqtt.connectAsync(gw.mqttUrl, {
  clientId: 'maple-ridge/rg-1',
  username: 'maple-ridge/rg-1',
  password: 'pw-rg-1',
});
for (let i = 0; i < 20; i++) {
  await rg.publishAsync('sites/maple-ridge/devices/rg-1/telemetry', JSON.stringify({ seq: i, rainTips: i }), {
    qos: 1,
  });
  await sleep(250);
}
await rg.endAsync();
await sleep(500);
const delivered = {
  cookie: byCookie.count('readings', disabledAt),
  token: byToken.count('readings', disabledAt),
};
const feedOpenAfter5s = {
  cookie: byCookie.closedAt() === undefined,
  token: byToken.closedAt() === undefined,
};
byCookie.close();
byToken.close();

// 2. A personal token after an admin resets the password.
const rita = await person('rita@town.example');
await call('PATCH', `/api/users/${rita.id}`, { password: 'another long password' }, admin);
const tokenAfterReset = (
  await call('GET', '/api/auth/me', undefined, { authorization: `Bearer ${rita.token}` })
).status;

// 3. A token minted with a one-day token.
const mia = await person('mia@town.example');
const day = await call(
  'POST',
  '/api/tokens',
  { name: 'one day', expiresAt: new Date(Date.now() + 86_400_000).toISOString() },
  mia.browser,
);
const minted = await call(
  'POST',
  '/api/tokens',
  { name: 'two years', expiresAt: new Date(Date.now() + 729 * 86_400_000).toISOString() },
  { authorization: `Bearer ${String(day.body.token)}` },
);
const mintedDays =
  minted.status === 201
    ? Math.round((Date.parse(String(minted.body.expiresAt)) - Date.now()) / 86_400_000)
    : 0;

// 4. A cookie write with `Authorization: Basic x` and no CSRF token.
const basic = await call(
  'POST',
  '/api/tokens',
  { name: 'by basic' },
  { cookie: mia.cookie, authorization: 'Basic x' },
);
await gw.cleanup();

// 5. A setup code of the first start, after a restart with GATEWAY_ADMIN_TOKEN.
const first = await startChild(baseConfig());
const link = await waitFor(
  () => /(http:\/\/\S+\/setup\?code=[\w-]+)/.exec(first.output())?.[1],
  30_000,
  'the link',
);
const code = new URL(link).searchParams.get('code')!;
await first.stop();
const again = await startChild(baseConfig(), { dataDir: first.dataDir, env: { GATEWAY_ADMIN_TOKEN: ADMIN } });
const setup = await fetch(`${again.httpUrl}/api/setup`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ code, name: 'Eve', email: 'eve@evil.example', password: PASSWORD }),
});
await again.cleanup();
await first.cleanup();

report('rights', {
  eventsDeliveredIn5sAfterDisable: delivered,
  feedOpen5sAfterDisable: feedOpenAfter5s,
  tokenAfterAdminReset: tokenAfterReset,
  mintedWithOneDayToken: { status: minted.status, days: mintedDays },
  cookieWriteWithBasicHeader: basic.status,
  setupCodeAfterRestartWithAdminToken: setup.status,
});
process.exit(0);
