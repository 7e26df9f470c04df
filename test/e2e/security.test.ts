import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLog } from '../../gateway/src/log.ts';
import { freePort, haveBinary, waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { TEST_VIEWER_TOKEN } from '../helpers/viewerFetch.ts';

const ADMIN_TOKEN = 'very-secret-admin-token-4242';
const INFLUX_TOKEN = 'very-secret-influx-token-1717';

/** GET over HTTPS trusting only the test's own certificate. */
/** A read over HTTPS as the test viewer (reads need a token). */
function httpsGet(url: string, ca: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, { ca, headers: { authorization: `Bearer ${TEST_VIEWER_TOKEN}` } }, (res) => {
      let body = '';
      res.on('data', (d) => {
        body += d;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });
}

describe.runIf(haveBinary('openssl'))('TLS for MQTT and HTTPS, and secrets kept out of logs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-tls-'));
  const logs: string[] = [];
  let gw: TestGateway;
  let ca: Buffer;
  let tlsPort: number;

  beforeAll(async () => {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    ca = readFileSync(join(dir, 'cert.pem'));
    tlsPort = await freePort();
    const tls = { certFile: join(dir, 'cert.pem'), keyFile: join(dir, 'key.pem') };
    gw = await startTestGateway(
      {
        http: { port: await freePort(), host: '127.0.0.1', tls },
        mqtt: { tls: { ...tls, port: tlsPort } },
        // An InfluxDB that is not there: the writer logs its errors, never the token.
        influx: {
          url: `http://127.0.0.1:${await freePort()}`,
          org: 'o',
          bucket: 'b',
          token: INFLUX_TOKEN,
          flushIntervalMs: 100,
        },
        auth: {
          tokens: [
            {
              name: 'admin',
              role: 'admin',
              tokenSha256: createHash('sha256').update(ADMIN_TOKEN).digest('hex'),
            },
          ],
        },
      },
      { log: createLog('debug', (line) => logs.push(line)) },
    );
  });
  afterAll(async () => {
    await gw?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the API over HTTPS', async () => {
    const res = await httpsGet(`https://127.0.0.1:${gw.httpPort}/api/health`, ca);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).gatewayId).toBe('test-gw');
  });

  it('accepts devices over MQTT with TLS, and refuses a client that does not trust the certificate', async () => {
    const c = await mqtt.connectAsync(`mqtts://127.0.0.1:${tlsPort}`, {
      ca,
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
    });
    await c.publishAsync(
      'sites/maple-ridge/devices/rg-1/telemetry',
      JSON.stringify({ seq: 1, rainTips: 3 }),
      { qos: 1 },
    );
    await c.endAsync();
    const site = JSON.parse(
      (await httpsGet(`https://127.0.0.1:${gw.httpPort}/api/sites/maple-ridge`, ca)).body,
    ) as {
      devices: Array<{ id: string; latest: Record<string, { value: number }> }>;
    };
    expect(site.devices.find((d) => d.id === 'rg-1')?.latest.rainTips?.value).toBe(3);
    await expect(
      mqtt.connectAsync(`mqtts://127.0.0.1:${tlsPort}`, {
        clientId: 'maple-ridge/rg-1',
        username: 'maple-ridge/rg-1',
        password: 'pw-rg-1',
        reconnectPeriod: 0,
      }),
    ).rejects.toThrow(/certificate/i);
  });

  it('never writes a password or token into the log', async () => {
    await expect(
      mqtt.connectAsync(`mqtts://127.0.0.1:${tlsPort}`, {
        ca,
        clientId: 'maple-ridge/rg-1',
        username: 'maple-ridge/rg-1',
        password: 'wrong-password-9999',
        reconnectPeriod: 0,
      }),
    ).rejects.toThrow();
    await waitFor(() => logs.join('').includes('MQTT login refused'), 10_000, 'the refusal in the log');
    const text = logs.join('');
    expect(text).toContain('MQTT login refused');
    expect(text).toMatch(/influx/i);
    for (const secret of ['wrong-password-9999', 'pw-rg-1', INFLUX_TOKEN, ADMIN_TOKEN])
      expect(text).not.toContain(secret);
  });
});
