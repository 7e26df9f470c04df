/**
 * With mqtt.plaintext false the embedded broker listens on TLS only: the plain port takes no login at
 * all. (With it on, the default, both listen: test/gateway/security.test.ts.)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect as tcp } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../gateway/src/config/load.ts';
import { freePort, haveBinary } from '../../helpers/env.ts';
import { startTestGateway, type TestGateway, testConfigInput } from '../../helpers/gateway.ts';

describe.runIf(haveBinary('openssl'))('MQTT over TLS only (mqtt.plaintext: false)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-tls-only-'));
  let gw: TestGateway;
  let plainPort: number;
  let tlsPort: number;
  beforeAll(async () => {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost'].concat([
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ]),
      { stdio: 'ignore' },
    );
    plainPort = await freePort();
    tlsPort = await freePort();
    gw = await startTestGateway({
      mqtt: {
        port: plainPort,
        host: '127.0.0.1',
        plaintext: false,
        tls: { certFile: join(dir, 'cert.pem'), keyFile: join(dir, 'key.pem'), port: tlsPort },
      },
    });
  });
  afterAll(async () => {
    await gw?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('takes no connection on the plain port', async () => {
    const err = await new Promise<string>((resolve) => {
      const s = tcp(plainPort, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve('connected');
      });
      s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    });
    expect(err).toBe('ECONNREFUSED');
  });

  it('takes a device over TLS', async () => {
    const c = await mqtt.connectAsync(`mqtts://127.0.0.1:${tlsPort}`, {
      ca: readFileSync(join(dir, 'cert.pem')),
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
      reconnectPeriod: 0,
    });
    await c.publishAsync('sites/maple-ridge/devices/rg-1/telemetry', JSON.stringify({ rainTips: 1 }), {
      qos: 1,
    });
    await c.endAsync();
  });

  it('refuses a configuration with the plain listener off and no TLS for the embedded broker', () => {
    expect(() => parseConfig({ ...testConfigInput(), mqtt: { plaintext: false } })).toThrow(/mqtt.plaintext/);
  });
});
