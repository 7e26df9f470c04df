/**
 * The demo's secrets stay on this machine: the gateway refuses to listen beyond loopback while a sample's
 * device password or a change-me placeholder of deploy/.env.example is in place, naming each and what to
 * change; on loopback the demo starts as before.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DemoSecretsExposed,
  demoSecrets,
  ENV_PLACEHOLDERS,
  exposedListeners,
  isLoopback,
} from '../../gateway/src/config/demoSecrets.ts';
import { loadConfig } from '../../gateway/src/config/load.ts';
import type { Config } from '../../gateway/src/config/schema.ts';
import { hashPassword } from '../../shared/src/password.ts';
import { startTestGateway, testHash } from '../helpers/gateway.ts';

const ROOT = join(import.meta.dirname, '../..');
const devicesOf = (c: Config) =>
  c.sites.flatMap((s) => s.devices.map((device) => ({ siteId: s.id, siteName: s.name, device })));
/**
 * deploy/.env.example as the environment docker-compose would give the gateway, its secrets filled with the
 * placeholders an earlier copy of it carried (a deployment made from one may still hold them).
 */
function envExample(): Record<string, string> {
  const vars = Object.fromEntries(
    readFileSync(join(ROOT, 'deploy/.env.example'), 'utf8')
      .split('\n')
      .filter((l) => /^[A-Z_]+=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  return {
    MQTT_URL: 'mqtt://mosquitto:1883',
    MQTT_USERNAME: vars.GATEWAY_MQTT_USER!,
    MQTT_PASSWORD: vars.GATEWAY_MQTT_PASSWORD || 'change-me',
    INFLUX_URL: 'http://influxdb:8086',
    INFLUX_TOKEN: vars.INFLUX_TOKEN || 'change-me-long-random-token',
    INFLUX_ORG: vars.INFLUX_ORG!,
    INFLUX_BUCKET: vars.INFLUX_BUCKET!,
    GATEWAY_ADMIN_TOKEN: vars.GATEWAY_ADMIN_TOKEN || 'change-me-admin-token',
  };
}

describe('listening beyond this machine', () => {
  it('tells loopback from every other address', () => {
    for (const h of ['127.0.0.1', '127.0.0.2', '::1', '[::1]', 'localhost', 'LOCALHOST'])
      expect(isLoopback(h), h).toBe(true);
    for (const h of [
      '0.0.0.0',
      '::',
      '192.168.1.20',
      'gateway.town.example',
      '128.0.0.1',
      '127.0.0.1.nip.io',
    ])
      expect(isLoopback(h), h).toBe(false);
  });

  it("counts the embedded broker's address, not an external broker's", () => {
    const sample = loadConfig(join(ROOT, 'gateway/config/sample.yaml'), {});
    expect(exposedListeners(sample)).toEqual([]);
    const exposed = loadConfig(join(ROOT, 'gateway/config/sample.yaml'), { MQTT_HOST: '0.0.0.0' });
    expect(exposedListeners(exposed)).toEqual(["mqtt.host 0.0.0.0 (the devices' broker)"]);
    const external = loadConfig(join(ROOT, 'gateway/config/sample.yaml'), {
      MQTT_HOST: '0.0.0.0',
      MQTT_URL: 'mqtt://broker:1883',
    });
    expect(exposedListeners(external)).toEqual([]);
  });
});

describe('the demo secrets', () => {
  it('finds every device password of the sample, by device and site, with what to do', async () => {
    const sample = loadConfig(join(ROOT, 'gateway/config/sample.yaml'), {});
    const found = await demoSecrets(sample, devicesOf(sample));
    expect(found.length).toBe(devicesOf(sample).length);
    expect(found).toContain(
      'Device rg-1 at Maple Ridge subdivision still has the demo password: give it a password of its own (npm run hash-password -- <password>, into its passwordHash) or a new one from the API (POST /api/sites/maple-ridge/devices/rg-1/secret).',
    );
  });

  it("finds the simulator's device passwords", async () => {
    const sim = loadConfig(join(ROOT, 'firmware-sim/scenarios/gateway.yaml'), {});
    const first = devicesOf(sim).slice(0, 2);
    expect(first.length).toBe(2);
    expect(await demoSecrets(sim, first)).toHaveLength(2);
  });

  it('finds no device password in deploy/gateway.yaml: a deployment sets its own', () => {
    const deploy = loadConfig(join(ROOT, 'deploy/gateway.yaml'), {});
    expect(devicesOf(deploy).length).toBeGreaterThan(0);
    expect(devicesOf(deploy).filter((d) => d.device.passwordHash !== undefined)).toEqual([]);
  });

  it('finds each change-me placeholder of an earlier deploy/.env.example the gateway is given, naming the setting', async () => {
    const deploy = loadConfig(join(ROOT, 'deploy/gateway.yaml'), envExample());
    const found = await demoSecrets(deploy, devicesOf(deploy));
    expect(found).toEqual([
      "The gateway's broker password (mqtt.password, MQTT_PASSWORD; GATEWAY_MQTT_PASSWORD in .env) is still a placeholder of an earlier deploy/.env.example: set a long random one.",
      'The InfluxDB token (influx.token, INFLUX_TOKEN in .env) is still a placeholder of an earlier deploy/.env.example: set a long random one.',
      'The API token "admin (GATEWAY_ADMIN_TOKEN)" (GATEWAY_ADMIN_TOKEN in .env, or auth.tokens) is still a placeholder of an earlier deploy/.env.example: set a long random one.',
    ]);
    const real = loadConfig(join(ROOT, 'deploy/gateway.yaml'), {
      ...envExample(),
      MQTT_PASSWORD: 'Zq8-a-password-of-its-own',
      INFLUX_TOKEN: 'a-token-of-its-own-3f9a',
      GATEWAY_ADMIN_TOKEN: 'an-admin-token-of-its-own-77c1',
    });
    expect(await demoSecrets(real, devicesOf(real))).toEqual([]);
  });

  it('deploy/.env.example ships no secret: each is empty (compose refuses), none a placeholder', () => {
    const lines = readFileSync(join(ROOT, 'deploy/.env.example'), 'utf8').split('\n');
    const value = (name: string) => lines.find((l) => l.startsWith(`${name}=`))?.slice(name.length + 1);
    for (const name of [
      'GATEWAY_MQTT_PASSWORD',
      'INFLUX_TOKEN',
      'GATEWAY_ADMIN_TOKEN',
      'INFLUX_ADMIN_PASSWORD',
    ])
      expect(value(name), name).toBe('');
    const values = lines.map((l) => l.slice(l.indexOf('=') + 1));
    expect(values.filter((v) => ENV_PLACEHOLDERS.some((p) => v.startsWith(p)))).toEqual([]);
  });
});

describe('the gateway', () => {
  const demoDevice = {
    id: 'maple-ridge',
    kind: 'construction' as const,
    devices: [
      {
        id: 'rg-1',
        kind: 'rain-gauge' as const,
        inchesPerTip: 0.01,
        passwordHash: hashPassword('demo-rg-1'),
      },
    ],
  };

  it('refuses to listen on every interface with a demo device password, before anything listens', async () => {
    const err = await startTestGateway({ http: { host: '0.0.0.0' }, sites: [demoDevice] }).then(
      (gw) => gw.cleanup().then(() => undefined),
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DemoSecretsExposed);
    const message = (err as Error).message;
    expect(message).toContain(
      'The gateway will not listen beyond this machine (http.host 0.0.0.0 (the dashboard and the API))',
    );
    expect(message).toContain('Device rg-1 at maple-ridge still has the demo password');
  });

  it('starts on loopback with the demo passwords, and on every interface once they are its own', async () => {
    const demo = await startTestGateway({ sites: [demoDevice] });
    expect((await fetch(`${demo.httpUrl}/api/health`)).status).toBe(200);
    await demo.cleanup();
    const own = {
      ...demoDevice,
      devices: [{ ...demoDevice.devices[0]!, passwordHash: testHash('a password of its own') }],
    };
    const exposed = await startTestGateway({ http: { host: '0.0.0.0' }, sites: [own] });
    expect(exposed.httpUrl).toMatch(/^http:\/\//);
    await exposed.cleanup();
  });
});
