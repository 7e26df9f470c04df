/**
 * A fleet reconnecting after a restart (issue 31, break 12): each device's first login is checked by
 * scrypt and stores a keyed hash of its secret; after a restart the same logins cost no scrypt check at
 * all (`gateway_password_checks_total`), so a fleet is back in at once rather than 65 ms a device, two
 * at a time.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../shared/src/password.ts';
import { type GatewayChild, startGatewayChild } from '../helpers/child.ts';
import { faultConfig, metrics, metricValue } from '../helpers/faults.ts';
import { rawConnect } from '../helpers/rawLogin.ts';

const N = 40;

describe('devices reconnecting after a restart (gateway process)', () => {
  let gw: GatewayChild | undefined;
  afterAll(async () => {
    await gw?.cleanup();
  });

  it(`${N} devices log in again after a restart without a single scrypt check`, async () => {
    const fleet = Array.from({ length: N }, (_, i) => ({
      id: `fl-${i}`,
      kind: 'rain-gauge',
      inchesPerTip: 0.01,
      passwordHash: hashPassword(`pw-fl-${i}`),
    }));
    const config = faultConfig({}, fleet);
    const dataDir = join(mkdtempSync(join(tmpdir(), 'reconnect-')), 'data');
    const all = (port: number) =>
      Promise.all(
        fleet.map(
          (d) => rawConnect(port, `maple-ridge/${d.id}`, `pw-${d.id}`, `maple-ridge/${d.id}`).connack,
        ),
      );
    const checks = async (g: GatewayChild) =>
      metricValue(await metrics(g.httpUrl), 'gateway_password_checks_total', 'transport="mqtt"');

    gw = await startGatewayChild(config, { dataDir });
    expect((await all(gw.mqttPort)).every((c) => c === 0)).toBe(true);
    expect(await checks(gw)).toBe(N);
    await gw.stop();

    gw = await startGatewayChild(config, { dataDir });
    expect((await all(gw.mqttPort)).every((c) => c === 0)).toBe(true);
    expect(await checks(gw)).toBe(0);
    // A wrong secret is still checked (and refused).
    expect(await rawConnect(gw.mqttPort, 'maple-ridge/fl-0', 'wrong', 'maple-ridge/fl-0').connack).toBe(4);
    expect(await checks(gw)).toBe(1);
  }, 120_000);
});
