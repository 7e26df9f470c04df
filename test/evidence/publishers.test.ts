/**
 * Checkpoints go off the box: retained on the embedded broker, POSTed to a witness (signed like the
 * webhooks), and mailed once a day as a digest; the signing key is in the data directory with mode 0600
 * and its private half never appears in the log. Real MQTT client, HTTP server and SMTP server.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCheckpoint, parseVerifierKey, verifyNote } from '../../gateway/src/ledger/checkpoint.ts';
import { verifySignature } from '../../gateway/src/notify/channels/webhook.ts';
import { waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway, testHash } from '../helpers/gateway.ts';
import {
  memoryLog,
  parseMail,
  startHttp,
  startSmtp,
  type TestHttpServer,
  type TestSmtpServer,
  WEBHOOK_SECRET,
} from '../notify/support.ts';

describe('signed checkpoints off the box', () => {
  let gw: TestGateway;
  let witness: TestHttpServer;
  let smtp: TestSmtpServer;
  const log = memoryLog();
  beforeAll(async () => {
    witness = await startHttp((_req, res) => res.writeHead(204).end());
    smtp = await startSmtp();
    gw = await startTestGateway(
      {
        mqtt: {
          users: [
            { username: 'town-witness', passwordHash: testHash('pw-witness'), subscribe: ['gateway/#'] },
          ],
        },
        notify: {
          webhookSecret: WEBHOOK_SECRET,
          smtp: { host: '127.0.0.1', port: smtp.port, from: 'gw@town.example' },
        },
        evidence: {
          checkpointIntervalSeconds: 1,
          witnesses: [{ url: `${witness.url}/checkpoints` }],
          digestTo: ['smo@town.example'],
        },
      } as never,
      { log },
    );
  });
  afterAll(async () => {
    await gw?.cleanup();
    await witness?.close();
    await smtp?.close();
  });

  it('publishes each checkpoint retained on MQTT, to the witness and in the daily digest', async () => {
    const c = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
    });
    await c.publishAsync('sites/maple-ridge/devices/rg-1/telemetry', JSON.stringify({ rainTips: 1 }), {
      qos: 1,
    });
    await c.endAsync();
    const { verifierKey } = (await (await fetch(`${gw.httpUrl}/api/evidence/key`)).json()) as {
      verifierKey: string;
    };
    const { name, publicKey } = parseVerifierKey(verifierKey);
    // A later reader of the broker gets the newest checkpoint, retained, and it verifies.
    const note = await waitFor(
      async () => {
        const sub = await mqtt.connectAsync(gw.mqttUrl, { username: 'town-witness', password: 'pw-witness' });
        const got = new Promise<string | undefined>((resolve) => {
          sub.on('message', (_t, p) => resolve(p.toString()));
          setTimeout(() => resolve(undefined), 500);
        });
        await sub.subscribeAsync('gateway/test-gw/checkpoint');
        const n = await got;
        await sub.endAsync();
        return n;
      },
      10_000,
      'a retained checkpoint',
    );
    expect(parseCheckpoint(verifyNote(note, name, publicKey)).size).toBeGreaterThan(0);
    const posted = await waitFor(() => witness.requests.at(-1), 10_000, 'a checkpoint at the witness');
    expect(posted.url).toBe('/checkpoints');
    expect(
      verifySignature(
        WEBHOOK_SECRET,
        String(posted.headers['x-gateway-timestamp']),
        posted.body,
        String(posted.headers['x-gateway-signature']),
      ),
    ).toBe(true);
    const body = JSON.parse(posted.body) as { checkpoint: string; size: number };
    expect(parseCheckpoint(verifyNote(body.checkpoint, name, publicKey)).size).toBe(body.size);
    const mail = await waitFor(() => smtp.messages[0], 10_000, 'the digest');
    expect(mail.to).toEqual(['smo@town.example']);
    const parsed = parseMail(mail.raw);
    expect(parsed.text).toContain(verifierKey);
    expect(parsed.text).toMatch(/signed checkpoint/i);
    // Once a day: later checkpoints (one a second here) do not mail again; time passing is the point.
    await new Promise((r) => setTimeout(r, 2500));
    expect(smtp.messages).toHaveLength(1);
    expect(witness.requests.length).toBeGreaterThanOrEqual(1);
  });

  it('keeps the key in the data directory with mode 0600, and never logs its private half', () => {
    const file = join(gw.dataDir, 'checkpoint-key.pem');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const pem = readFileSync(file, 'utf8');
    const secret = pem.replace(/-----[^-]+-----/g, '').replace(/\s/g, '');
    expect(secret.length).toBeGreaterThan(40);
    const all = log.lines.join('\n');
    expect(all).toContain('checkpoint');
    expect(all).not.toContain(secret);
    expect(all).not.toContain('PRIVATE KEY');
  });
});
