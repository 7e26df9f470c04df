/**
 * Login throttling and log sizes against the gateway process: wrong passwords for one username slow its
 * next attempts down (refused unchecked, one log line per real check, not per attempt) and the right
 * password gets in once the delay has passed; whatever a client sends, no log line grows past 8 KB.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_FIELD_CHARS, MAX_LINE_CHARS } from '../../gateway/src/log.ts';
import { type GatewayChild, startGatewayChild } from '../helpers/child.ts';
import { waitFor } from '../helpers/env.ts';
import { faultConfig, login, metrics, metricValue } from '../helpers/faults.ts';

describe('MQTT logins (gateway process)', () => {
  let gw: GatewayChild;
  beforeAll(async () => {
    gw = await startGatewayChild(faultConfig());
  });
  afterAll(async () => {
    await gw?.cleanup();
  });
  const as = (password: string, username = 'maple-ridge/rg-1') =>
    login(gw.mqttUrl, { clientId: 'maple-ridge/rg-1', username, password });

  it('slows wrong passwords down with a growing delay, logs each real check once, and lets the right one in after the delay', async () => {
    const logged0 = (gw.output().match(/MQTT login refused/g) ?? []).length;
    const outcomes: string[] = [];
    const t0 = Date.now();
    while (Date.now() - t0 < 6000)
      outcomes.push((await as(`wrong-${outcomes.length}`)).refused ?? 'accepted');
    const checked = outcomes.filter((o) => /Bad username or password/.test(o)).length;
    const shut = outcomes.filter((o) => /Server unavailable/.test(o)).length;
    // Three free failures, then 1 s, 2 s, 4 s: at most about six real checks in six seconds.
    expect(checked).toBeGreaterThanOrEqual(4);
    expect(checked).toBeLessThanOrEqual(7);
    expect(shut).toBeGreaterThan(0);
    const logged = (gw.output().match(/MQTT login refused/g) ?? []).length - logged0;
    expect(logged).toBe(checked);
    expect(metricValue(await metrics(gw.httpUrl), 'gateway_login_throttled_total', 'transport="mqtt"')).toBe(
      shut,
    );
    // While shut the right password is refused too, unchecked; after the delay it gets in.
    expect((await as('pw-rg-1')).refused).toMatch(/Server unavailable/);
    // Tried once a second: each try while shut is refused unchecked.
    const ok = await waitFor(
      async () => (await as('pw-rg-1')).client,
      20_000,
      'the right password to get in',
      1000,
    );
    ok.end(true);
  }, 60_000);

  it('cuts what a client sent in every log line: a 6 KB username, a 60 KB one', async () => {
    const from = gw.output().length;
    await login(gw.mqttUrl, { clientId: 'x', username: `u${'x'.repeat(6000)}`, password: 'p' });
    await login(gw.mqttUrl, { clientId: 'y', username: `v${'y'.repeat(60 * 1024)}`, password: 'p' });
    const logged = () => gw.output().slice(from).split('\n').slice(0, -1);
    await waitFor(
      () =>
        logged().some((l) => l.includes('"username":"ux')) &&
        logged().some((l) => /over the limit before login/.test(l)),
      10_000,
      'both logins in the log',
    );
    const lines = gw.output().slice(from).split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(MAX_LINE_CHARS);
    const refused = lines
      .map((l) => JSON.parse(l) as { username?: string })
      .find((l) => l.username?.startsWith('ux'));
    expect(refused?.username?.length).toBeLessThan(MAX_FIELD_CHARS + 40);
    // The 60 KB one does not fit in a packet: refused from its length header, before any login is read.
    expect(lines.some((l) => /over the limit before login/.test(l))).toBe(true);
  });
});
