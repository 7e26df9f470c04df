/**
 * Rights end when they end, against the gateway process: a live feed (`GET /api/events`) opened with a
 * session cookie or a personal token closes within seconds, with a last `closed` event saying why, when
 * the account is disabled, when an admin resets its password (its tokens revoked too), when its token is
 * revoked, and when its token expires; a person's own password change ends their other sessions and their
 * feeds while the session they changed it in stays, feed and all. Reads are behind a sign-in here, so a
 * feed that closed cannot be opened again with what it had.
 */
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayChild } from '../helpers/child.ts';
import { waitFor } from '../helpers/env.ts';
import { type Browser, PASSWORD, peopleApi, signedInGateway } from '../helpers/people.ts';
import { FeedRefused, type LiveFeed, openFeed } from '../helpers/sse.ts';

const ADMIN = 'rights-admin-token';
/** "Within seconds": the feeds close at once after a change; this is the bound a loaded machine gets. */
const CLOSE_MS = 10_000;

describe('live feeds end with the rights they were opened with', { timeout: 240_000 }, () => {
  let gw: GatewayChild;
  let api: ReturnType<typeof peopleApi>;
  let gauge: MqttClient;
  let seq = 0;
  const feeds: LiveFeed[] = [];

  beforeAll(async () => {
    gw = await signedInGateway(ADMIN);
    api = peopleApi(gw.httpUrl, ADMIN);
    gauge = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
    });
  }, 120_000);
  afterAll(async () => {
    for (const f of feeds) f.close();
    await gauge?.endAsync();
    await gw?.cleanup();
  });

  const feed = async (headers: Record<string, string>) => {
    const f = await openFeed(`${gw.httpUrl}/api/events`, headers);
    feeds.push(f);
    return f;
  };
  const byCookie = (b: Browser) => feed({ cookie: b.cookie });
  const byToken = (token: string) => feed({ authorization: `Bearer ${token}` });
  /** A reading stored (QoS 1, acknowledged), and every feed given must deliver it. */
  const delivers = async (...fs: LiveFeed[]) => {
    const since = Date.now();
    seq++;
    await gauge.publishAsync(
      'sites/maple-ridge/devices/rg-1/telemetry',
      JSON.stringify({ seq, rainTips: seq }),
      { qos: 1 },
    );
    await waitFor(() => fs.every((f) => f.count('readings', since) > 0), 20_000, 'the feeds to deliver it');
  };
  const closes = async (f: LiveFeed, what: string) => {
    await waitFor(() => f.closedAt() !== undefined, CLOSE_MS, `the feed opened ${what} to close`);
    const last = f.events.at(-1)!;
    expect(last.type).toBe('closed');
    expect(String((last.data as { reason: string }).reason)).toMatch(/Your access has ended.*Sign in again/);
  };
  const refused = async (headers: Record<string, string>) => {
    const e = await openFeed(`${gw.httpUrl}/api/events`, headers).then(
      (f) => {
        f.close();
        return undefined;
      },
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(FeedRefused);
    expect((e as FeedRefused).status).toBe(401);
  };

  it('disabling an account closes its feeds, by cookie and by token', async () => {
    const id = await api.account('Dora Disabled', 'dora@town.example');
    const dora = await api.signIn('dora@town.example');
    const { token } = await api.token(dora, 'wall screen');
    const [c, t] = [await byCookie(dora), await byToken(token)];
    await delivers(c, t);

    expect((await api.call('PATCH', `/api/users/${id}`, { disabled: true }, api.admin)).status).toBe(200);
    await closes(c, 'by cookie');
    await closes(t, 'by token');
    await refused({ cookie: dora.cookie });
    await refused({ authorization: `Bearer ${token}` });
  });

  it('an admin password reset closes the feeds and revokes the person’s tokens', async () => {
    const id = await api.account('Rita Reset', 'rita@town.example', 'inspector');
    const rita = await api.signIn('rita@town.example');
    const { token } = await api.token(rita, 'field tablet');
    const [c, t] = [await byCookie(rita), await byToken(token)];
    await delivers(c, t);

    const reset = await api.call('PATCH', `/api/users/${id}`, { password: 'a new long password' }, api.admin);
    expect(reset.status).toBe(200);
    await closes(c, 'by cookie');
    await closes(t, 'by token');
    const me = await api.call('GET', '/api/auth/me', undefined, { authorization: `Bearer ${token}` });
    expect(me.status).toBe(401);
    const tokens = await api.call(
      'GET',
      '/api/tokens',
      undefined,
      (await api.signIn('rita@town.example', 'a new long password')).write,
    );
    expect((tokens.body as unknown as Array<{ revokedAt: string | null }>)[0]?.revokedAt).not.toBeNull();
  });

  it('a person’s own password change ends their other sessions and feeds; the current one stays', async () => {
    await api.account('Paula Password', 'paula@town.example');
    const here = await api.signIn('paula@town.example');
    const there = await api.signIn('paula@town.example');
    const { token } = await api.token(here, 'laptop');
    const [fHere, fThere, fToken] = [await byCookie(here), await byCookie(there), await byToken(token)];
    await delivers(fHere, fThere, fToken);

    const wrong = await api.call(
      'POST',
      '/api/auth/password',
      { currentPassword: 'not my password', newPassword: 'my brand new password' },
      here.write,
    );
    expect(wrong.status).toBe(403);
    expect(String(wrong.body.message)).toMatch(/current password is not right/);
    expect(fThere.closedAt()).toBeUndefined();

    const changed = await api.call(
      'POST',
      '/api/auth/password',
      { currentPassword: PASSWORD, newPassword: 'my brand new password' },
      here.write,
    );
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body.otherSessionsEnded).toBe(1);
    await closes(fThere, 'in the other session');
    // The session the change was made in, and the person's token, go on.
    await delivers(fHere, fToken);
    expect(fHere.closedAt()).toBeUndefined();
    expect(fToken.closedAt()).toBeUndefined();
    expect((await api.call('GET', '/api/auth/me', undefined, { cookie: here.cookie })).status).toBe(200);
    expect((await api.call('GET', '/api/auth/me', undefined, { cookie: there.cookie })).status).toBe(401);
    await api.signIn('paula@town.example', 'my brand new password');
  });

  it('revoking a token closes the feeds opened with it, and only those', async () => {
    await api.account('Tess Token', 'tess@town.example');
    const tess = await api.signIn('tess@town.example');
    const made = await api.token(tess, 'kiosk');
    const [c, t] = [await byCookie(tess), await byToken(made.token)];
    await delivers(c, t);

    expect((await api.call('DELETE', `/api/tokens/${made.id}`, undefined, tess.write)).status).toBe(200);
    await closes(t, 'by the revoked token');
    await delivers(c);
    expect(c.closedAt()).toBeUndefined();
    await refused({ authorization: `Bearer ${made.token}` });
  });

  it('an owner’s feed follows a change of their sites; a configured token’s feed goes on', async () => {
    const id = await api.account('Olive Owner', 'olive@maple.example', 'owner');
    expect((await api.call('PATCH', `/api/users/${id}`, { sites: ['maple-ridge'] }, api.admin)).status).toBe(
      200,
    );
    const olive = await api.signIn('olive@maple.example');
    const [mine, town] = [await byCookie(olive), await byToken(ADMIN)];
    await delivers(mine, town);

    expect((await api.call('PATCH', `/api/users/${id}`, { sites: [] }, api.admin)).status).toBe(200);
    const since = Date.now();
    await delivers(town);
    await delivers(town);
    // The town's feed has the reading; the owner's, open still, no longer gets that site's.
    expect(mine.count('readings', since)).toBe(0);
    expect(mine.closedAt()).toBeUndefined();
    expect(town.closedAt()).toBeUndefined();
  });

  it('a token’s feed closes when the token expires, not before', async () => {
    await api.account('Eric Expiry', 'eric@town.example');
    const eric = await api.signIn('eric@town.example');
    const expiresAt = Date.now() + 15_000;
    const { token } = await api.token(eric, 'fifteen seconds', expiresAt);
    const t = await byToken(token);
    await delivers(t);

    await waitFor(() => t.closedAt() !== undefined, 15_000 + CLOSE_MS + 5_000, 'the feed to close at expiry');
    expect(t.closedAt()!).toBeGreaterThanOrEqual(expiresAt);
    expect(t.events.at(-1)?.type).toBe('closed');
    await refused({ authorization: `Bearer ${token}` });
  });
});
