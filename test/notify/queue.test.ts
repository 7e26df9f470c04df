import { afterEach, describe, expect, it } from 'vitest';
import {
  type DeliveryTarget,
  type EventRow,
  NotificationQueue,
  recordNotificationEvent,
} from '../../gateway/src/notify/queue.ts';
import { addEvent, makeAlert, type TempDb, tempDb } from './support.ts';

const T0 = 1_800_000_000_000;
const officerMail: DeliveryTarget = { channel: 'email', target: 'officer@town.example' };
const hook: DeliveryTarget = { channel: 'webhook', target: 'https://user:pw@hooks.example/in?token=abc' };
const to =
  (...targets: DeliveryTarget[]) =>
  (_ev: EventRow) =>
    targets;

describe('notification queue on a real SQLite file', () => {
  let store: TempDb | undefined;
  afterEach(() => {
    store?.cleanup();
    store = undefined;
  });

  it('records an event only when the alert change commits, once per event id', () => {
    store = tempDb();
    const db = store.db;
    const q = new NotificationQueue(db);
    const change = (eventId: string, fail: boolean) =>
      db.transaction(() => {
        recordNotificationEvent(db, { eventId, kind: 'raise', alert: makeAlert(), createdAt: T0 });
        if (fail) throw new Error('the alert change failed');
      })();
    expect(() => change('ev-rolled-back', true)).toThrow('the alert change failed');
    expect(q.unfanned(10)).toEqual([]);

    change('ev-1', false);
    expect(q.unfanned(10)).toMatchObject([
      {
        event_id: 'ev-1',
        kind: 'raise',
        alert_id: 'alert-1',
        site_id: 'maple-ridge',
        rule: 'storm-inspection',
      },
    ]);
    expect(JSON.parse(q.unfanned(10)[0]!.payload)).toEqual(makeAlert());
    expect(
      recordNotificationEvent(db, {
        eventId: 'ev-1',
        kind: 'resolve',
        alert: makeAlert(),
        createdAt: T0 + 1,
      }),
    ).toBe(false);
    expect(q.unfanned(10)).toHaveLength(1);
  });

  it('fans out once: deliveries are due from the fan-out time and the event is not offered again', () => {
    store = tempDb();
    const q = new NotificationQueue(store.db);
    addEvent(store.db, 'ev-1', 'raise', makeAlert(), T0);
    addEvent(store.db, 'ev-2', 'raise', makeAlert(), T0);
    const events = q.unfanned(10);
    expect(q.fanOut(events, to(officerMail, hook), T0 + 10)).toBe(4);
    expect(q.unfanned(10)).toEqual([]);
    expect(q.fanOut(events, to(officerMail, hook), T0 + 20)).toBe(0);
    expect(q.due(T0 + 9, 100)).toEqual([]);
    expect(q.due(T0 + 10, 100).map((d) => [d.event_id, d.channel])).toEqual([
      ['ev-1', 'email'],
      ['ev-1', 'webhook'],
      ['ev-2', 'email'],
      ['ev-2', 'webhook'],
    ]);
    expect(q.due(T0 + 10, 3)).toHaveLength(3);
    expect(q.nextDueAt()).toBe(T0 + 10);
    expect(q.counts()).toEqual({ pending: 4, failed: 0, sent: 0 });
    expect(q.oldestPendingAt()).toBe(T0);
  });

  it('offers, pass after pass, only what came since; in limits, oldest first; a restarted queue skips none', () => {
    store = tempDb();
    const q = new NotificationQueue(store.db);
    for (let i = 1; i <= 5; i++) addEvent(store.db, `ev-${i}`, 'raise', makeAlert(), T0);
    const first = q.unfanned(3);
    expect(first.map((e) => e.event_id)).toEqual(['ev-1', 'ev-2', 'ev-3']);
    q.fanOut(first, to(officerMail), T0);
    addEvent(store.db, 'ev-6', 'raise', makeAlert(), T0);
    const second = q.unfanned(10);
    expect(second.map((e) => e.event_id)).toEqual(['ev-4', 'ev-5', 'ev-6']);
    q.fanOut(second, to(officerMail), T0);
    expect(q.unfanned(10)).toEqual([]);
    addEvent(store.db, 'ev-7', 'raise', makeAlert(), T0);
    expect(q.unfanned(10).map((e) => e.event_id)).toEqual(['ev-7']);
    expect(new NotificationQueue(store.db).unfanned(10).map((e) => e.event_id)).toEqual(['ev-7']);
  });

  it('a retry makes the delivery due later and holds the same target, not the others', () => {
    store = tempDb();
    const q = new NotificationQueue(store.db);
    for (const id of ['ev-1', 'ev-2']) addEvent(store.db, id, 'raise', makeAlert(), T0);
    q.fanOut(q.unfanned(10), to(officerMail, hook), T0);
    const first = q.due(T0, 100).find((d) => d.event_id === 'ev-1' && d.channel === 'email')!;
    q.scheduleRetry(first, 1, T0 + 5_000, 'SMTP ETIMEDOUT');

    expect(q.due(T0 + 4_999, 100).map((d) => [d.event_id, d.channel])).toEqual([
      ['ev-1', 'webhook'],
      ['ev-2', 'webhook'],
    ]);
    const later = q.due(T0 + 5_000, 100).filter((d) => d.channel === 'email');
    expect(later.map((d) => [d.event_id, d.attempts, d.last_error])).toEqual([
      ['ev-1', 1, 'SMTP ETIMEDOUT'],
      ['ev-2', 0, null],
    ]);
    expect(q.nextDueAt()).toBe(T0);
  });

  it('sent and failed are final: a late mark for a settled delivery changes nothing', () => {
    store = tempDb();
    const q = new NotificationQueue(store.db);
    addEvent(store.db, 'ev-1', 'raise', makeAlert(), T0);
    q.fanOut(q.unfanned(10), to(officerMail, hook), T0);
    const [mail, webhook] = q.due(T0, 100);
    if (!mail || !webhook) throw new Error('expected two deliveries');
    q.markSent(mail.id, 1, T0 + 1);
    q.markFailed(webhook.id, 1, 'HTTP 400');
    q.markFailed(mail.id, 2, 'too late');
    q.markSent(webhook.id, 2, T0 + 2);
    expect(q.counts()).toEqual({ pending: 0, failed: 1, sent: 1 });
    expect(q.list({ status: 'sent' })).toMatchObject([{ id: mail.id, attempts: 1, lastError: null }]);
    expect(q.list({ status: 'failed' })).toMatchObject([
      { id: webhook.id, attempts: 1, lastError: 'HTTP 400' },
    ]);
    expect(q.nextDueAt()).toBeUndefined();
    expect(q.oldestPendingAt()).toBeUndefined();

    expect(q.requeueFailed(T0 + 100, [mail.id])).toBe(0);
    expect(q.requeueFailed(T0 + 100)).toBe(1);
    expect(q.due(T0 + 100, 10)).toMatchObject([{ id: webhook.id, attempts: 0, status: 'pending' }]);
  });

  it('keeps pending deliveries, their attempts and the fan-out marks across a restart', () => {
    store = tempDb();
    const q = new NotificationQueue(store.db);
    addEvent(store.db, 'ev-1', 'raise', makeAlert(), T0);
    q.fanOut(q.unfanned(10), to(officerMail), T0);
    q.scheduleRetry(q.due(T0, 10)[0]!, 3, T0 + 60_000, 'SMTP 451');

    const reopened = new NotificationQueue(store.reopen());
    expect(reopened.unfanned(10)).toEqual([]);
    expect(reopened.due(T0 + 59_999, 10)).toEqual([]);
    expect(reopened.due(T0 + 60_000, 10)).toMatchObject([
      { event_id: 'ev-1', channel: 'email', attempts: 3, last_error: 'SMTP 451', kind: 'raise' },
    ]);
    expect(reopened.counts()).toEqual({ pending: 1, failed: 0, sent: 0 });
  });

  it('lists with optional filters (an empty one is no filter), newest first, bounded, targets shown safely', () => {
    store = tempDb();
    const q = new NotificationQueue(store.db);
    addEvent(store.db, 'ev-1', 'raise', makeAlert({ id: 'a-1' }), T0);
    addEvent(store.db, 'ev-2', 'raise', makeAlert({ id: 'a-2', siteId: 'oak-lane' }), T0);
    q.fanOut(q.unfanned(10), to(officerMail, hook), T0);

    expect(q.list().map((d) => d.id)).toEqual([4, 3, 2, 1]);
    expect(q.list({ channel: 'webhook' }).map((d) => d.target)).toEqual([
      'https://hooks.example/in',
      'https://hooks.example/in',
    ]);
    expect(q.list({ siteId: 'oak-lane' }).map((d) => d.eventId)).toEqual(['ev-2', 'ev-2']);
    expect(q.list({ alertId: 'a-1', channel: 'email' })).toMatchObject([{ eventId: 'ev-1', alertId: 'a-1' }]);
    expect(q.list({ eventId: 'ev-2', status: 'pending' })).toHaveLength(2);
    expect(q.list({ siteId: '' })).toHaveLength(4);
    expect(q.list({ limit: 1, offset: 1 }).map((d) => d.id)).toEqual([3]);
    expect(q.list({ limit: 0 })).toHaveLength(1);
    expect(q.list()[0]).toMatchObject({
      status: 'pending',
      nextAt: new Date(T0).toISOString(),
      createdAt: new Date(T0).toISOString(),
      sentAt: null,
    });
  });
});
