import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { configSchema } from '../../gateway/src/config/schema.ts';
import { composeAlertEmail, type EmailRequest } from '../../gateway/src/notify/channels/email.ts';
import type { WebhookRequest } from '../../gateway/src/notify/channels/webhook.ts';
import { readDelivery, storedAlert } from '../../gateway/src/notify/delivery.ts';
import { NotificationDispatcher } from '../../gateway/src/notify/dispatcher.ts';
import { DeliveryError } from '../../gateway/src/notify/errors.ts';
import type { DeliveryRow } from '../../gateway/src/notify/queue.ts';
import { migrate } from '../../gateway/src/store/schema/index.ts';
import { waitFor } from '../helpers/env.ts';
import { configAndSites, makeAlert, makeConfig, type TempDb, tempDb } from './support.ts';

const RELEASE_DUMP = join(import.meta.dirname, '../fixtures/store/release-0.1.0.sql');

function row(over: Partial<DeliveryRow> = {}): DeliveryRow {
  return {
    id: 7,
    event_id: 'ev-1',
    channel: 'email',
    target: 'officer@town.example',
    status: 'pending',
    attempts: 0,
    next_at: 0,
    last_error: null,
    sent_at: null,
    kind: 'raise',
    alert_id: 'alert-1',
    site_id: 'maple-ridge',
    rule: 'storm-inspection',
    payload: JSON.stringify(makeAlert()),
    created_at: 0,
    ...over,
  };
}

describe('reading a queued delivery', () => {
  it('carries the stored alert as is in the MQTT and webhook body', () => {
    const d = readDelivery(row({ payload: '{"id":"alert-1","extra":{"b":1,"a":2}}' }));
    expect(d).toMatchObject({ id: 7, eventId: 'ev-1', kind: 'raise', target: 'officer@town.example' });
    if ('ok' in d) throw new Error('expected a delivery');
    expect(d.body).toBe('{"event":"raise","eventId":"ev-1","alert":{"id":"alert-1","extra":{"b":1,"a":2}}}');
  });

  it('fails for good when the event is missing or its payload is not JSON', () => {
    expect(readDelivery(row({ payload: null, kind: null }))).toEqual({
      ok: false,
      permanent: true,
      message: 'the event is missing from the store',
    });
    expect(readDelivery(row({ payload: '{oops' }))).toMatchObject({ ok: false, permanent: true });
  });

  it("reads the alert as the alert DTO, the event's columns filling a missing id, rule or site", () => {
    const { id: _id, rule: _rule, siteId: _site, ...rest } = makeAlert();
    const d = readDelivery(row({ payload: JSON.stringify(rest), alert_id: 'a-col', rule: 'field-remedy' }));
    if ('ok' in d) throw new Error('expected a delivery');
    expect(storedAlert(d)).toMatchObject({ id: 'a-col', rule: 'field-remedy', siteId: 'maple-ridge' });
    const both = readDelivery(row({ alert_id: 'a-col' }));
    if ('ok' in both) throw new Error('expected a delivery');
    expect(storedAlert(both).id).toBe('alert-1');
  });

  it('refuses, for good and with the fields named, a payload that is not an alert DTO', () => {
    const alien = { ...makeAlert(), history: [{ at: '2026-11-30T19:00:00.000Z', by: 'system' }] };
    const d = readDelivery(row({ payload: JSON.stringify(alien) }));
    if ('ok' in d) throw new Error('expected a delivery');
    let error: unknown;
    try {
      storedAlert(d);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DeliveryError);
    expect(error).toMatchObject({
      permanent: true,
      message: expect.stringMatching(/not an alert DTO: history\.0\.seq/),
    });
  });
});

describe('payloads stored by an earlier release', () => {
  let dir: string | undefined;
  let store: TempDb | undefined;
  let dispatcher: NotificationDispatcher | undefined;
  afterEach(async () => {
    await dispatcher?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    store?.cleanup();
    dispatcher = undefined;
    dir = undefined;
    store = undefined;
  });

  it('delivers every event of a release-0.1.0 data directory by MQTT, webhook and e-mail', async () => {
    dir = mkdtempSync(join(tmpdir(), 'notify-release-'));
    const db = new Database(join(dir, 'gateway.db'));
    db.exec(readFileSync(RELEASE_DUMP, 'utf8'));
    migrate(db);
    // Fan the stored events out again, now to recipients too (the release ran without any).
    db.exec('DELETE FROM notification_fanout');
    const payloads = new Map(
      (
        db.prepare('SELECT event_id, payload FROM notification_events').all() as Array<{
          event_id: string;
          payload: string;
        }>
      ).map((r) => [r.event_id, JSON.parse(r.payload) as unknown]),
    );
    expect(payloads.size).toBe(9);
    const recipient = (id: string) => [
      { role: 'officer', email: `officer@${id}.example`, webhook: `https://${id}.example/h` },
    ];
    const config = configSchema.parse({
      gatewayId: 'test-gw',
      timezone: 'America/New_York',
      notify: { webhookSecret: 'whsec-release-test' },
      sites: [
        { id: 'maple-ridge', kind: 'construction', recipients: recipient('maple-ridge') },
        { id: 'oak-lane', kind: 'alternative-system', recipients: recipient('oak-lane') },
      ],
    });
    const mails: EmailRequest[] = [];
    const hooks: WebhookRequest[] = [];
    const published: string[] = [];
    dispatcher = new NotificationDispatcher({
      db,
      ...configAndSites(config),
      now: () => Date.parse('2027-01-01T00:00:00Z'),
      channels: {
        mqtt: { publish: async (topic) => void published.push(topic) },
        webhook: { send: async (req) => void hooks.push(req) },
        email: {
          send: async (req) => {
            composeAlertEmail(req, { from: 'gateway@town.example' });
            mails.push(req);
          },
        },
      },
    });
    await dispatcher.start();
    await waitFor(() => dispatcher!.health().pending === 0, 10_000, 'every delivery settled');

    expect(dispatcher.health()).toMatchObject({ pending: 0, failed: 0 });
    expect(dispatcher.list({ status: 'sent', limit: 1000 })).toHaveLength(6 + 3 + 9 + 9);
    expect(published).toHaveLength(3);
    expect(mails.map((m) => m.eventId).sort()).toEqual([...payloads.keys()].sort());
    for (const h of hooks) expect(JSON.parse(h.body).alert).toEqual(payloads.get(h.eventId));
    const overdue = mails.find((m) => m.kind === 'overdue')!;
    expect(composeAlertEmail(overdue, { from: 'gateway@town.example' }).subject).toBe(
      '[OVERDUE] annual-inspection at oak-lane — due 2026-07-31 00:00 EDT',
    );
    db.close();
  });

  it('fails the e-mail of a payload that is not an alert DTO at once, and still sends it by MQTT', async () => {
    store = tempDb();
    const alien = { id: 'a-9', status: 'open', history: [{ at: '2026-11-30T19:00:00.000Z', by: 'system' }] };
    store.db
      .prepare(
        `INSERT INTO notification_events (event_id, kind, alert_id, site_id, rule, payload, created_at)
         VALUES ('ev-alien', 'raise', 'a-9', 'maple-ridge', 'storm-inspection', ?, 0)`,
      )
      .run(JSON.stringify(alien));
    const published: string[] = [];
    let mailed = 0;
    dispatcher = new NotificationDispatcher({
      db: store.db,
      ...configAndSites(makeConfig({ recipients: [{ role: 'officer', email: 'o@town.example' }] })),
      channels: {
        mqtt: { publish: async (_topic, payload) => void published.push(payload) },
        email: { send: async () => void mailed++ },
      },
    });
    await dispatcher.start();
    await waitFor(() => dispatcher!.health().pending === 0, 5_000, 'both settled');
    expect(mailed).toBe(0);
    expect(dispatcher.list({ channel: 'email' })[0]).toMatchObject({ status: 'failed', attempts: 1 });
    expect(dispatcher.list({ channel: 'email' })[0]!.lastError).toMatch(/not an alert DTO/);
    expect(published.map((p) => JSON.parse(p).alert)).toEqual([alien]);
  });
});
