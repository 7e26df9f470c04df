import { afterEach, describe, expect, it } from 'vitest';
import { Registry } from '../../../gateway/src/metrics.ts';
import {
  HttpWebhookSender,
  signPayload,
  verifySignature,
  type WebhookRequest,
  webhookChannel,
} from '../../../gateway/src/notify/channels/webhook.ts';
import { NotificationDispatcher } from '../../../gateway/src/notify/dispatcher.ts';
import { DeliveryError } from '../../../gateway/src/notify/errors.ts';
import { waitFor } from '../../helpers/env.ts';
import {
  addEvent,
  configAndSites,
  makeConfig,
  makeDelivery,
  memoryLog,
  type Received,
  sleep,
  startHttp,
  type TempDb,
  type TestHttpServer,
  tempDb,
  WEBHOOK_SECRET,
} from '../support.ts';

const header = (r: Received, name: string) => {
  const v = r.headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
};
const verified = (r: Received, secret = WEBHOOK_SECRET) =>
  verifySignature(secret, header(r, 'x-gateway-timestamp'), r.body, header(r, 'x-gateway-signature'));

describe('verifySignature', () => {
  const body = '{"event":"raise"}';
  const now = 1_780_000_000_000;
  const ts = String(now / 1000);

  it('accepts a fresh, correct signature', () => {
    expect(verifySignature('s3cret', ts, body, signPayload('s3cret', ts, body), { now })).toBe(true);
  });

  it('rejects a wrong secret, a changed body and a malformed header', () => {
    const sig = signPayload('s3cret', ts, body);
    expect(verifySignature('other', ts, body, sig, { now })).toBe(false);
    expect(verifySignature('s3cret', ts, `${body} `, sig, { now })).toBe(false);
    expect(verifySignature('s3cret', ts, body, sig.replace('sha256=', ''), { now })).toBe(false);
    expect(verifySignature('s3cret', ts, body, undefined, { now })).toBe(false);
  });

  it('rejects an old or a future timestamp even when the signature matches', () => {
    const old = String(now / 1000 - 301);
    expect(verifySignature('s3cret', old, body, signPayload('s3cret', old, body), { now })).toBe(false);
    const future = String(now / 1000 + 301);
    expect(verifySignature('s3cret', future, body, signPayload('s3cret', future, body), { now })).toBe(false);
  });
});

describe('webhook delivery through the dispatcher', () => {
  let server: TestHttpServer | undefined;
  let store: TempDb | undefined;
  let dispatcher: NotificationDispatcher | undefined;

  afterEach(async () => {
    await dispatcher?.stop();
    await server?.close();
    store?.cleanup();
    dispatcher = undefined;
    server = undefined;
    store = undefined;
  });

  it('signs the request, and retries a 503 after the backoff', async () => {
    let calls = 0;
    server = await startHttp((r, res) => {
      calls++;
      if (!verified(r)) {
        res.writeHead(401).end('bad signature');
        return;
      }
      res.writeHead(calls === 1 ? 503 : 204).end(calls === 1 ? 'busy' : undefined);
    });
    store = tempDb();
    const config = makeConfig({ recipients: [{ role: 'officer', webhook: `${server.url}/hooks/alerts` }] });
    const metrics = new Registry();
    dispatcher = new NotificationDispatcher({
      db: store.db,
      ...configAndSites(config),
      channels: { webhook: new HttpWebhookSender({ secret: WEBHOOK_SECRET, gatewayId: config.gatewayId }) },
      metrics,
      retry: { baseMs: 300, jitter: 0 },
    });
    addEvent(store.db, 'ev-1', 'overdue');
    await dispatcher.start();
    dispatcher.notify();

    await waitFor(() => dispatcher!.list({ status: 'sent' }).length === 1, 10_000, 'webhook sent');
    const [d] = dispatcher.list();
    expect(d).toMatchObject({ channel: 'webhook', status: 'sent', attempts: 2, eventId: 'ev-1' });
    expect(d!.lastError).toContain('HTTP 503');

    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests as [Received, Received];
    expect(second.at - first.at).toBeGreaterThanOrEqual(290);
    for (const r of server.requests) {
      expect(verified(r)).toBe(true);
      expect(header(r, 'content-type')).toBe('application/json');
      expect(header(r, 'x-gateway-event')).toBe('overdue');
      expect(header(r, 'x-gateway-delivery')).toBe('ev-1');
      expect(header(r, 'x-gateway-id')).toBe('test-gw');
      expect(r.url).toBe('/hooks/alerts');
    }
    expect(verified(second, 'not-the-secret')).toBe(false);
    const body = JSON.parse(second.body);
    expect(body).toMatchObject({
      event: 'overdue',
      eventId: 'ev-1',
      alert: { id: 'alert-1', siteId: 'maple-ridge' },
    });
    expect(metrics.counter('gateway_notifications_sent_total', '').get({ channel: 'webhook' })).toBe(1);
    expect(metrics.counter('gateway_notifications_failed_total', '').get({ channel: 'webhook' })).toBe(0);
  });

  it('marks a 400 as failed at once and does not retry it', async () => {
    server = await startHttp((_r, res) => {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('unknown site');
    });
    store = tempDb();
    const metrics = new Registry();
    const log = memoryLog();
    dispatcher = new NotificationDispatcher({
      db: store.db,
      ...configAndSites(makeConfig({ recipients: [{ role: 'owner', webhook: `${server.url}/x` }] })),
      channels: { webhook: new HttpWebhookSender({ secret: WEBHOOK_SECRET }) },
      metrics,
      log,
      retry: { baseMs: 50, jitter: 0 },
    });
    addEvent(store.db, 'ev-400');
    await dispatcher.start();
    await waitFor(() => dispatcher!.list({ status: 'failed' }).length === 1, 10_000, 'webhook failed');
    // Time passes and a 400 is not retried.
    await sleep(400);
    expect(server.requests).toHaveLength(1);
    const [d] = dispatcher.list();
    expect(d).toMatchObject({ status: 'failed', attempts: 1 });
    expect(d!.lastError).toMatch(/HTTP 400.*unknown site/);
    expect(metrics.counter('gateway_notifications_failed_total', '').get({ channel: 'webhook' })).toBe(1);
    expect(dispatcher.health()).toMatchObject({ pending: 0, failed: 1 });
    expect(metrics.render()).toMatch(/gateway_notification_deliveries\{status="failed"\} 1/);
    expect(log.lines.some((l) => l.startsWith('error') && l.includes('ev-400'))).toBe(true);
  });

  it('retries a 429 no sooner than its Retry-After', async () => {
    let calls = 0;
    server = await startHttp((_r, res) => {
      calls++;
      if (calls === 1) res.writeHead(429, { 'retry-after': '1' }).end();
      else res.writeHead(200).end('ok');
    });
    store = tempDb();
    dispatcher = new NotificationDispatcher({
      db: store.db,
      ...configAndSites(makeConfig({ recipients: [{ role: 'owner', webhook: `${server.url}/y` }] })),
      channels: { webhook: new HttpWebhookSender({ secret: WEBHOOK_SECRET }) },
      retry: { baseMs: 20, jitter: 0 },
    });
    addEvent(store.db, 'ev-429');
    await dispatcher.start();
    await waitFor(() => dispatcher!.list({ status: 'sent' }).length === 1, 10_000, 'sent after 429');
    const [a, b] = server.requests as [Received, Received];
    expect(b.at - a.at).toBeGreaterThanOrEqual(990);
  });
});

describe('webhookChannel', () => {
  const delivery = makeDelivery({ channel: 'webhook', target: 'https://hooks.example/in', kind: 'overdue' });

  it('hands the target URL, kind, event id and body to the sender', async () => {
    const sent: WebhookRequest[] = [];
    const channel = webhookChannel({ send: async (req) => void sent.push(req) });
    expect(await channel.send(delivery)).toEqual({ ok: true });
    expect(sent).toEqual([
      { url: 'https://hooks.example/in', kind: 'overdue', eventId: 'ev-1', body: delivery.body },
    ]);
  });

  it("passes on the sender's verdict: permanent or retryable, with the receiver's Retry-After", async () => {
    const busy = webhookChannel({
      send: () => Promise.reject(new DeliveryError('HTTP 429', false, 30_000)),
    });
    expect(await busy.send(delivery)).toEqual({
      ok: false,
      permanent: false,
      message: 'HTTP 429',
      retryAfterMs: 30_000,
    });
    const gone = webhookChannel({ send: () => Promise.reject(new DeliveryError('HTTP 410', true)) });
    expect(await gone.send(delivery)).toEqual({ ok: false, permanent: true, message: 'HTTP 410' });
  });

  it('without a sender, fails every delivery for good and says why', async () => {
    expect(await webhookChannel(undefined).send(delivery)).toMatchObject({
      ok: false,
      permanent: true,
      message: expect.stringContaining('notify.webhookSecret'),
    });
  });
});
