import { afterEach, describe, expect, it } from 'vitest';
import { Registry } from '../../gateway/src/metrics.ts';
import { NotificationDispatcher } from '../../gateway/src/notify/dispatcher.ts';
import { waitFor } from '../helpers/env.ts';
import { addEvent, configAndSites, makeAlert, makeConfig, sleep, type TempDb, tempDb } from './support.ts';

describe('dispatcher with fake channels', () => {
  let store: TempDb | undefined;
  let dispatcher: NotificationDispatcher | undefined;

  afterEach(async () => {
    await dispatcher?.stop();
    store?.cleanup();
    dispatcher = undefined;
    store = undefined;
  });

  it('stop() waits for the send in flight and the delivery ends up sent', async () => {
    store = tempDb();
    let release: () => void = () => undefined;
    let started = false;
    const mqtt = {
      publish: () =>
        new Promise<void>((resolve) => {
          started = true;
          release = resolve;
        }),
    };
    dispatcher = new NotificationDispatcher({
      db: store.db,
      ...configAndSites(makeConfig()),
      channels: { mqtt },
    });
    addEvent(store.db, 'ev-1');
    await dispatcher.start();
    await waitFor(() => started, 5_000, 'publish to start');
    let stopped = false;
    const stopping = dispatcher.stop().then(() => {
      stopped = true;
    });
    // Time passes and stop() still waits for the publish in flight.
    await sleep(100);
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(stopped).toBe(true);
    expect(dispatcher.list()[0]).toMatchObject({ status: 'sent', attempts: 1 });
    expect(dispatcher.health().ok).toBe(false);
  });

  it('gives up after maxAttempts, keeps the row as failed, counts it, and can retry it', async () => {
    store = tempDb();
    let calls = 0;
    let up = false;
    const metrics = new Registry();
    const mqtt = {
      async publish() {
        calls++;
        if (!up) throw new Error('no broker');
      },
    };
    dispatcher = new NotificationDispatcher({
      db: store.db,
      ...configAndSites(makeConfig()),
      channels: { mqtt },
      metrics,
      retry: { baseMs: 20, jitter: 0, maxAttempts: 3 },
    });
    addEvent(store.db, 'ev-1');
    await dispatcher.start();
    await waitFor(() => dispatcher!.list({ status: 'failed' }).length === 1, 5_000, 'failed');
    // Time passes and no fourth attempt comes.
    await sleep(150);
    expect(calls).toBe(3);
    expect(dispatcher.list()[0]).toMatchObject({
      status: 'failed',
      attempts: 3,
      lastError: 'Error: no broker',
    });
    expect(metrics.counter('gateway_notifications_failed_total', '').get({ channel: 'mqtt' })).toBe(1);
    expect(metrics.counter('gateway_notification_attempt_errors_total', '').get({ channel: 'mqtt' })).toBe(3);

    up = true;
    expect(dispatcher.retryFailed()).toBe(1);
    await waitFor(() => dispatcher!.list({ status: 'sent' }).length === 1, 5_000, 'sent after retry');
    expect(calls).toBe(4);
  });

  it('creates webhook and e-mail deliveries without a channel, and fails them visibly', async () => {
    store = tempDb();
    dispatcher = new NotificationDispatcher({
      db: store.db,
      ...configAndSites(makeConfig({ recipients: [{ role: 'officer', email: 'o@town.example' }] })),
      channels: {},
      retry: { baseMs: 10, jitter: 0, maxAttempts: 2 },
    });
    addEvent(store.db, 'ev-1');
    await dispatcher.start();
    await waitFor(() => dispatcher!.list({ status: 'failed' }).length === 1, 5_000, 'failed');
    expect(dispatcher.list()[0]!.lastError).toContain('no e-mail channel is configured');
    // Failed at the first attempt: retrying cannot help until the channel is configured.
    expect(dispatcher.list()[0]!.attempts).toBe(1);
  });

  it('fails an event whose payload is not JSON without retrying it', async () => {
    store = tempDb();
    store.db
      .prepare(
        `INSERT INTO notification_events (event_id, kind, alert_id, site_id, rule, payload, created_at)
         VALUES ('ev-bad', 'raise', 'a', 'maple-ridge', 'storm-inspection', '{oops', 0)`,
      )
      .run();
    let calls = 0;
    dispatcher = new NotificationDispatcher({
      db: store.db,
      ...configAndSites(makeConfig()),
      channels: {
        mqtt: {
          async publish() {
            calls++;
          },
        },
      },
    });
    await dispatcher.start();
    await waitFor(() => dispatcher!.list({ status: 'failed' }).length === 1, 5_000, 'failed');
    expect(calls).toBe(0);
    expect(dispatcher.list()[0]!.lastError).toContain('not JSON');
  });

  it('reports pending count and the age of the oldest pending notification', () => {
    store = tempDb();
    const now = 1_800_000_000_000;
    dispatcher = new NotificationDispatcher({
      db: store.db,
      ...configAndSites(makeConfig({ recipients: [{ role: 'owner', email: 'o@home.example' }] })),
      channels: {},
      now: () => now,
      staleAfterMs: 60_000,
    });
    addEvent(store.db, 'ev-old', 'reminder', makeAlert(), now - 120_000);
    addEvent(store.db, 'ev-new', 'raise', makeAlert(), now - 1_000);
    expect(dispatcher.fanOut()).toBe(2);
    const h = dispatcher.health();
    expect(h).toMatchObject({ name: 'notifications', pending: 2, failed: 0, oldestPendingAgeSec: 120 });
    expect(h.ok).toBe(false);
    expect(dispatcher.list({ status: 'pending' }).map((d) => d.eventId)).toEqual(['ev-new', 'ev-old']);
    expect(dispatcher.list({ eventId: 'ev-old' })[0]).toMatchObject({
      kind: 'reminder',
      siteId: 'maple-ridge',
    });
  });
});
