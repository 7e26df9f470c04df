import { afterEach, describe, expect, it } from 'vitest';
import { HttpWebhookSender } from '../../gateway/src/notify/channels/webhook.ts';
import { NotificationDispatcher } from '../../gateway/src/notify/dispatcher.ts';
import { freePort, waitFor } from '../helpers/env.ts';
import {
  addEvent,
  configAndSites,
  makeAlert,
  makeConfig,
  sleep,
  startHttp,
  type TempDb,
  type TestHttpServer,
  tempDb,
  WEBHOOK_SECRET,
} from './support.ts';

describe('restart and crash safety', () => {
  let server: TestHttpServer | undefined;
  let store: TempDb | undefined;
  const dispatchers: NotificationDispatcher[] = [];

  afterEach(async () => {
    for (const d of dispatchers.splice(0)) await d.stop();
    await server?.close();
    store?.cleanup();
    server = undefined;
    store = undefined;
  });

  it('delivers every event exactly once per target after a restart with the receiver back', async () => {
    const port = await freePort();
    const config = makeConfig({
      recipients: [
        { role: 'officer', webhook: `http://127.0.0.1:${port}/officer` },
        { role: 'developer', webhook: `http://127.0.0.1:${port}/developer` },
      ],
    });
    store = tempDb();
    const ids = ['ev-a', 'ev-b', 'ev-c'];
    ids.forEach((id, i) => {
      addEvent(store!.db, id, 'raise', makeAlert({ id: `alert-${i}` }));
    });
    const published: string[] = [];
    let mqttUp = false;
    const mqtt = {
      async publish(topic: string, payload: string) {
        if (!mqttUp) throw new Error('broker unreachable');
        published.push(`${topic} ${JSON.parse(payload).eventId}`);
      },
    };

    const first = new NotificationDispatcher({
      db: store.db,
      ...configAndSites(config),
      channels: { webhook: new HttpWebhookSender({ secret: WEBHOOK_SECRET, timeoutMs: 2000 }), mqtt },
      retry: { baseMs: 100, jitter: 0 },
    });
    dispatchers.push(first);
    await first.start();
    await waitFor(
      () => first.list().filter((d) => d.attempts >= 1).length >= 3,
      10_000,
      'first attempts to fail',
    );
    await first.stop();
    expect(first.list({ status: 'sent' })).toHaveLength(0);
    expect(first.health().pending).toBe(9);
    const withErrors = first.list({ status: 'pending' }).filter((d) => d.lastError);
    expect(new Set(withErrors.map((d) => d.target)).size).toBe(3);
    expect(first.list({ channel: 'mqtt' }).some((d) => d.lastError?.includes('broker unreachable'))).toBe(
      true,
    );

    const db = store.reopen();
    server = await startHttp((_r, res) => {
      res.writeHead(200).end();
    }, port);
    mqttUp = true;
    const second = new NotificationDispatcher({
      db,
      ...configAndSites(config),
      channels: { webhook: new HttpWebhookSender({ secret: WEBHOOK_SECRET }), mqtt },
      retry: { baseMs: 100, jitter: 0 },
    });
    dispatchers.push(second);
    await second.start();
    await waitFor(() => second.list({ status: 'sent' }).length === 9, 10_000, 'all nine sent');
    // Time passes and nothing is sent twice.
    await sleep(300);

    const seen = server.requests.map((r) => `${r.url} ${r.headers['x-gateway-delivery']}`).sort();
    expect(seen).toEqual(ids.flatMap((id) => [`/developer ${id}`, `/officer ${id}`]).sort());
    expect(published.sort()).toEqual(ids.map((id) => `alerts/maple-ridge/storm-inspection ${id}`).sort());
    expect(second.health()).toMatchObject({ pending: 0, failed: 0, oldestPendingAgeSec: null });
  });

  it('keeps webhook deliveries to one target in event order across a failure', async () => {
    let calls = 0;
    server = await startHttp((_r, res) => {
      calls++;
      res.writeHead(calls === 1 ? 502 : 200).end();
    });
    store = tempDb();
    for (const id of ['ev-1', 'ev-2', 'ev-3']) addEvent(store.db, id);
    const d = new NotificationDispatcher({
      db: store.db,
      ...configAndSites(makeConfig({ recipients: [{ role: 'officer', webhook: `${server.url}/h` }] })),
      channels: { webhook: new HttpWebhookSender({ secret: WEBHOOK_SECRET }) },
      retry: { baseMs: 100, jitter: 0 },
    });
    dispatchers.push(d);
    await d.start();
    await waitFor(() => d.list({ status: 'sent' }).length === 3, 10_000, 'three sent');
    expect(server.requests.map((r) => r.headers['x-gateway-delivery'])).toEqual([
      'ev-1',
      'ev-1',
      'ev-2',
      'ev-3',
    ]);
  });

  it('fans out idempotently: a second fan-out after a crash creates no duplicates', () => {
    store = tempDb();
    const config = makeConfig({
      recipients: [
        { role: 'officer', email: 'officer@town.example', webhook: 'http://127.0.0.1:9/a' },
        { role: 'owner', email: 'OFFICER@town.example' },
        { role: 'developer', email: 'dev@site.example' },
      ],
    });
    const mqtt = { publish: async () => undefined };
    addEvent(store.db, 'ev-x');
    addEvent(store.db, 'ev-y', 'resolve');

    const a = new NotificationDispatcher({ db: store.db, ...configAndSites(config), channels: { mqtt } });
    expect(a.fanOut()).toBe(8);
    const before = store.db
      .prepare('SELECT event_id, channel, target FROM notification_deliveries ORDER BY id')
      .all();

    store.db.exec('DELETE FROM notification_fanout');
    store.db
      .prepare("UPDATE notification_deliveries SET status = 'sent', attempts = 1 WHERE channel = 'mqtt'")
      .run();
    const b = new NotificationDispatcher({ db: store.db, ...configAndSites(config), channels: { mqtt } });
    expect(b.fanOut()).toBe(0);
    expect(b.fanOut()).toBe(0);
    const after = store.db
      .prepare('SELECT event_id, channel, target FROM notification_deliveries ORDER BY id')
      .all();
    expect(after).toEqual(before);
    expect(b.list({ status: 'sent' })).toHaveLength(2);
    expect(after).toContainEqual({
      event_id: 'ev-x',
      channel: 'mqtt',
      target: 'alerts/maple-ridge/storm-inspection',
    });
  });
});
