import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfig } from '../../gateway/src/config/load.ts';
import { testConfigInput } from '../helpers/gateway.ts';

const run = promisify(execFile);

describe('configuration', () => {
  it('applies the documented defaults', () => {
    const c = parseConfig(testConfigInput());
    expect(c.timezone).toBe('America/New_York');
    expect(c.http.port).toBe(8080);
    expect(c.mqtt.port).toBe(1883);
    expect(c.mqtt.allowAnonymous).toBe(false);
    expect(c.sites[0]!.storm).toEqual({
      thresholdIn: 0.5,
      interEventHours: 6,
      dueFrom: 'end',
      dueHours: 24,
      settleMinutes: 5,
    });
    expect(c.sites[0]!.alarmHoldSeconds).toBe(60);
  });

  it('reports every error with its path', () => {
    const bad = {
      gatewayId: 'has/slash',
      http: { port: 'eighty' },
      sites: [
        {
          id: 's1',
          kind: 'castle',
          devices: [
            { id: 'rg', kind: 'rain-gauge' },
            { id: 'rg', kind: 'sediment-trap', designDepthIn: 10, colour: 'red' },
          ],
        },
      ],
    };
    let err: ConfigError | undefined;
    try {
      parseConfig(bad);
    } catch (e) {
      err = e as ConfigError;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const text = err!.problems.join('\n');
    expect(text).toContain('gatewayId');
    expect(text).toContain('http.port');
    expect(text).toContain('sites[0].kind');
    expect(text).toContain('sites[0].devices[0].inchesPerTip');
    expect(text).toContain('sites[0].devices[1]');
    expect(err!.problems.length).toBeGreaterThanOrEqual(5);
  });

  it('lets the environment override the file', () => {
    const c = parseConfig(testConfigInput(), {
      HTTP_PORT: '9999',
      MQTT_PORT: '2883',
      GATEWAY_DATA_DIR: '/var/lib/gw',
      MQTT_URL: 'mqtt://broker:1883',
      INFLUX_URL: 'http://influx:8086',
      INFLUX_DB: 'telemetry',
      GATEWAY_ADMIN_TOKEN: 'secret-token',
    });
    expect(c.http.port).toBe(9999);
    expect(c.mqtt.port).toBe(2883);
    expect(c.dataDir).toBe('/var/lib/gw');
    expect(c.mqtt.url).toBe('mqtt://broker:1883');
    expect(c.influx).toMatchObject({ url: 'http://influx:8086', db: 'telemetry' });
    expect(c.auth.tokens.some((t) => t.role === 'admin' && !JSON.stringify(t).includes('secret-token'))).toBe(
      true,
    );
  });

  it('takes a broker cluster as a list of URLs (mqtt.urls, or MQTT_URL with commas) and checks it', () => {
    const nodes = ['mqtt://n1:1883', 'mqtts://n2:8883', 'mqtt://n3:1883'];
    const c = parseConfig(testConfigInput({ mqtt: { urls: nodes, protocolVersion: 4 } }));
    expect(c.mqtt.urls).toEqual(nodes);
    expect(c.mqtt.protocolVersion).toBe(4);
    expect(parseConfig(testConfigInput(), { MQTT_URL: nodes.join(', ') }).mqtt).toMatchObject({
      urls: nodes,
    });
    expect(
      parseConfig(testConfigInput({ mqtt: { url: 'mqtt://a:1' } }), { MQTT_URL: nodes.join(',') }).mqtt.url,
    ).toBe(undefined);
    expect(() => parseConfig(testConfigInput({ mqtt: { url: 'mqtt://a:1', urls: nodes } }))).toThrow(
      /not both/,
    );
    expect(() => parseConfig(testConfigInput({ mqtt: { urls: ['http://n1:80'] } }))).toThrow(/mqtt.urls/);
    expect(() => parseConfig(testConfigInput({ mqtt: { urls: [] } }))).toThrow(/mqtt.urls/);
    expect(() => parseConfig(testConfigInput({ mqtt: { protocolVersion: 3 as 4 } }))).toThrow(
      /protocolVersion/,
    );
  });

  it('follows other gateways only over a shared broker, never itself', () => {
    const c = parseConfig(
      testConfigInput({ mqtt: { url: 'mqtt://b:1883' }, fleet: { follow: ['north', '*'] } }),
    );
    expect(c.fleet).toEqual({ follow: ['north', '*'], publishSeconds: 60 });
    expect(parseConfig(testConfigInput()).fleet.follow).toEqual([]);
    expect(() => parseConfig(testConfigInput({ fleet: { follow: ['north'] } }))).toThrow(/shared broker/);
    expect(() =>
      parseConfig(testConfigInput({ mqtt: { url: 'mqtt://b:1883' }, fleet: { follow: ['test-gw'] } })),
    ).toThrow(/itself/);
    expect(() =>
      parseConfig(testConfigInput({ mqtt: { url: 'mqtt://b:1883' }, fleet: { follow: ['a/b'] } })),
    ).toThrow(/fleet.follow/);
  });

  it('refuses a plain password where a hash belongs', () => {
    const input = testConfigInput();
    (input.sites![0]!.devices![0] as { passwordHash?: string }).passwordHash = 'hunter2';
    expect(() => parseConfig(input)).toThrow(/passwordHash/);
  });

  it('the shipped sample configuration is valid', () => {
    const c = loadConfig(join(import.meta.dirname, '../../gateway/config/sample.yaml'), {});
    expect(c.sites.length).toBeGreaterThan(1);
  });

  it('the sample configuration listens on this machine only and holds no API token', () => {
    const file = join(import.meta.dirname, '../../gateway/config/sample.yaml');
    const c = loadConfig(file, {});
    expect([c.http.host, c.mqtt.host]).toEqual(['127.0.0.1', '127.0.0.1']);
    expect(c.auth.tokens).toEqual([]);
    expect(c.auth.users).toEqual([]);
    expect(readFileSync(file, 'utf8')).not.toMatch(/token(Sha256)?:/i);
    // Opened to the network by the environment, as the README says.
    const open = loadConfig(file, { HTTP_HOST: '0.0.0.0', MQTT_HOST: '0.0.0.0' });
    expect([open.http.host, open.mqtt.host]).toEqual(['0.0.0.0', '0.0.0.0']);
  });

  it('listens on the loopback address unless the configuration says otherwise', () => {
    const c = parseConfig({ gatewayId: 'gw' });
    expect([c.http.host, c.mqtt.host]).toEqual(['127.0.0.1', '127.0.0.1']);
  });

  it('npm start exits non-zero and prints every problem for an invalid file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    const file = join(dir, 'bad.yaml');
    writeFileSync(
      file,
      'gatewayId: ok\nsites:\n  - id: a\n    kind: nope\n    devices: [{ id: d, kind: rain-gauge }]\n',
    );
    const err = await run('npx', ['tsx', 'gateway/src/cli.ts'], {
      env: { ...process.env, GATEWAY_CONFIG: file, GATEWAY_DATA_DIR: dir },
    }).then(
      () => undefined,
      (e: { code: number; stderr: string }) => e,
    );
    expect(err?.code).toBe(2);
    expect(err?.stderr).toContain('sites[0].kind');
    expect(err?.stderr).toContain('sites[0].devices[0].inchesPerTip');
  });
});
