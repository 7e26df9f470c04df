/**
 * Throttles under concurrency, against the gateway process: a burst of wrong passwords sent all at once
 * (200 MQTT CONNECTs on raw sockets, 300 `POST /api/auth/login` on their own connections) costs only a
 * few password checks (`gateway_password_checks_total`), because each attempt is counted before its
 * password is hashed and only a few checks run at once per account and per address. The right password,
 * sent after the burst is on the wire but while it is being answered, is refused unchecked while the
 * account is shut, and accepted once the shut time has passed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayChild, startGatewayChild } from '../helpers/child.ts';
import { waitFor } from '../helpers/env.ts';
import { faultConfig, metrics, metricValue } from '../helpers/faults.ts';
import { testHash } from '../helpers/gateway.ts';
import { rawConnect, rawSignIn } from '../helpers/rawLogin.ts';

/** A few checks: the 3 free failures and the one that shuts, with room for a shut that ends mid-burst. */
const A_FEW = 8;

describe('throttles under a burst (gateway process)', () => {
  let gw: GatewayChild;
  beforeAll(async () => {
    gw = await startGatewayChild(
      faultConfig({
        auth: {
          users: [
            {
              name: 'Olive Officer',
              email: 'olive@chester.example',
              role: 'inspector',
              passwordHash: testHash('olive-right-password'),
            },
          ],
        },
      }),
    );
  });
  afterAll(async () => {
    await gw?.cleanup();
  });
  const checks = async (transport: string) =>
    metricValue(await metrics(gw.httpUrl), 'gateway_password_checks_total', `transport="${transport}"`);

  it('200 simultaneous wrong MQTT logins cost a few password checks; the right one is refused while shut, then accepted', async () => {
    const before = await checks('mqtt');
    const wrong = Array.from({ length: 199 }, (_, i) =>
      rawConnect(gw.mqttPort, 'maple-ridge/rg-1', `wrong-${i}`),
    );
    await Promise.all(wrong.map((w) => w.sent));
    const right = rawConnect(gw.mqttPort, 'maple-ridge/rg-1', 'pw-rg-1');
    const codes = await Promise.all(wrong.map((w) => w.connack));
    const rightCode = await right.connack;
    const performed = (await checks('mqtt')) - before;
    // Every wrong one refused: 4 (bad credentials) when checked, 3 (server unavailable) when shut.
    expect(codes.every((c) => c === 3 || c === 4)).toBe(true);
    expect(codes.filter((c) => c === 4).length).toBe(performed);
    expect(performed).toBeGreaterThanOrEqual(3);
    expect(performed).toBeLessThanOrEqual(A_FEW);
    expect(rightCode).toBe(3);
    // Once the shut time has passed the right password gets in (tried once a second: a try while shut is
    // refused unchecked, and the tries are not to be a burst of their own).
    await waitFor(
      async () => (await rawConnect(gw.mqttPort, 'maple-ridge/rg-1', 'pw-rg-1').connack) === 0,
      90_000,
      'the right password to get in',
      1000,
    );
  }, 150_000);

  it('300 simultaneous wrong sign-ins on one account cost a few password checks; the right one is refused while shut, then accepted', async () => {
    const email = 'olive@chester.example';
    const before = await checks('http');
    const wrong = Array.from({ length: 299 }, (_, i) => rawSignIn(gw.httpUrl, email, `wrong-${i}`));
    await Promise.all(wrong.map((w) => w.sent));
    const right = rawSignIn(gw.httpUrl, email, 'olive-right-password');
    const statuses = await Promise.all(wrong.map((w) => w.status));
    const rightStatus = await right.status;
    const performed = (await checks('http')) - before;
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    expect(statuses.filter((s) => s === 401).length).toBe(performed);
    expect(performed).toBeGreaterThanOrEqual(3);
    expect(performed).toBeLessThanOrEqual(A_FEW);
    expect(rightStatus).toBe(429);
    // Once the shut time has passed the right password gets in (tried once a second, as above).
    await waitFor(
      async () => (await rawSignIn(gw.httpUrl, email, 'olive-right-password').status) === 200,
      90_000,
      'the right password to sign in',
      1000,
    );
  }, 150_000);
});
