import { afterEach, describe, expect, it } from 'vitest';
import { SmtpEmailSender } from '../../gateway/src/notify/channels/email.ts';
import { HttpWebhookSender } from '../../gateway/src/notify/channels/webhook.ts';
import { NotificationDispatcher } from '../../gateway/src/notify/dispatcher.ts';
import { waitFor } from '../helpers/env.ts';
import {
  addEvent,
  configAndSites,
  makeConfig,
  memoryLog,
  SMTP_PASSWORD,
  startHttp,
  startSmtp,
  type TempDb,
  type TestHttpServer,
  type TestSmtpServer,
  tempDb,
  WEBHOOK_SECRET,
} from './support.ts';

describe('secrets stay out of stored errors and logs', () => {
  let http: TestHttpServer | undefined;
  let smtp: TestSmtpServer | undefined;
  let store: TempDb | undefined;
  let dispatcher: NotificationDispatcher | undefined;

  afterEach(async () => {
    await dispatcher?.stop();
    await http?.close();
    await smtp?.close();
    store?.cleanup();
    dispatcher = undefined;
    http = undefined;
    smtp = undefined;
    store = undefined;
  });

  it('redacts a webhook secret and an SMTP password that failing servers echo back', async () => {
    http = await startHttp((r, res) => {
      res
        .writeHead(500, { 'content-type': 'text/plain' })
        .end(`debug: secret=${WEBHOOK_SECRET} headers=${JSON.stringify(r.headers)} body=${r.body}`);
    });
    const authSeen: string[] = [];
    smtp = await startSmtp({
      authOptional: false,
      onAuth(auth, _session, callback) {
        authSeen.push(auth.password ?? '');
        const b64 = Buffer.from(auth.password ?? '').toString('base64');
        callback(Object.assign(new Error(`bad password ${auth.password} (${b64})`), { responseCode: 535 }));
      },
    });
    store = tempDb();
    const config = makeConfig(
      { recipients: [{ role: 'officer', email: 'officer@town.example', webhook: `${http.url}/hook` }] },
      { smtp: { host: '127.0.0.1', port: smtp.port, user: 'gateway', pass: SMTP_PASSWORD } },
    );
    const log = memoryLog();
    dispatcher = new NotificationDispatcher({
      db: store.db,
      ...configAndSites(config),
      log,
      channels: {
        webhook: new HttpWebhookSender({ secret: WEBHOOK_SECRET }),
        email: new SmtpEmailSender({ smtp: config.notify.smtp! }),
      },
      retry: { baseMs: 100, jitter: 0, maxAttempts: 2 },
    });
    addEvent(store.db, 'ev-secret');
    await dispatcher.start();
    await waitFor(() => dispatcher!.list({ status: 'failed' }).length === 2, 10_000, 'both failed');

    expect(authSeen[0]).toBe(SMTP_PASSWORD);
    expect(http.requests.length).toBe(2);
    const rows = store.db.prepare('SELECT channel, last_error FROM notification_deliveries').all() as Array<{
      channel: string;
      last_error: string;
    }>;
    const webhookError = rows.find((r) => r.channel === 'webhook')!.last_error;
    const emailError = rows.find((r) => r.channel === 'email')!.last_error;
    expect(webhookError).toContain('HTTP 500');
    expect(webhookError).toContain('secret=***');
    expect(emailError).toMatch(/EAUTH 535/);
    expect(emailError).toContain('bad password ***');

    const everything = [
      ...rows.map((r) => r.last_error),
      ...log.lines,
      JSON.stringify(dispatcher.list()),
      JSON.stringify(dispatcher.health()),
      store.db.prepare('SELECT group_concat(payload) AS p FROM notification_events').pluck().get() as string,
    ].join('\n');
    expect(log.lines.length).toBeGreaterThan(0);
    for (const secret of [
      WEBHOOK_SECRET,
      SMTP_PASSWORD,
      Buffer.from(SMTP_PASSWORD).toString('base64'),
      Buffer.from(WEBHOOK_SECRET).toString('base64'),
    ])
      expect(everything).not.toContain(secret);
  });
});
