/**
 * The notification queue over the outbox tables (their DDL is in store/schema/):
 *   - `notification_events`: one row per alert change, written by the alert engine with
 *     recordNotificationEvent() in the same transaction as the change (an outbox);
 *   - `notification_deliveries`: one row per event, channel and target, with its state
 *     (pending / sent / failed), attempts, next attempt time and last error;
 *   - `notification_fanout`: the events already turned into deliveries.
 * Every write is idempotent (INSERT OR IGNORE on the unique keys, updates guarded by the status), so
 * running a step again after a crash never duplicates or loses a delivery.
 */

import type Database from 'better-sqlite3';
import type { Channel, DeliveryStatus, DeliveryView } from '../../../shared/src/api/alerts.ts';
import { type Page, pageSql, sitesIn } from '../store/page.ts';
import { where } from '../store/where.ts';
import { displayTarget } from './errors.ts';

export {
  CHANNELS,
  type Channel,
  channelSchema,
  DELIVERY_STATUSES,
  type DeliveryStatus,
  type DeliveryView,
  deliveryStatusSchema,
  NOTIFICATION_KINDS,
  type NotificationKind,
  notificationKindSchema,
} from '../../../shared/src/api/alerts.ts';

export { type NotificationEventInput, recordNotificationEvent } from '../store/outbox.ts';

/** A row of notification_events as stored. */
export interface EventRow {
  id: number;
  event_id: string;
  kind: string;
  alert_id: string;
  site_id: string;
  rule: string;
  payload: string;
  created_at: number;
}

/** A delivery joined with its event (the event columns are null when the event row is missing). */
export interface DeliveryRow {
  id: number;
  event_id: string;
  channel: Channel;
  target: string;
  status: DeliveryStatus;
  attempts: number;
  next_at: number;
  last_error: string | null;
  sent_at: number | null;
  kind: string | null;
  alert_id: string | null;
  site_id: string | null;
  rule: string | null;
  payload: string | null;
  created_at: number | null;
}

/** Where one event goes: a channel and its target (topic, URL or address). */
export interface DeliveryTarget {
  channel: Channel;
  target: string;
}

export interface ListOptions {
  status?: DeliveryStatus;
  channel?: Channel;
  siteId?: string;
  eventId?: string;
  alertId?: string;
  limit?: number;
  offset?: number;
  /** One page, newest first, after the cursor's delivery (the API); `limit` and `offset` are then unused. */
  page?: Page;
  /** Only these sites' deliveries (a caller who sees only theirs). */
  siteIds?: readonly string[];
}

export interface DeliveryCounts {
  pending: number;
  failed: number;
  sent: number;
}

const iso = (ms: number | null | undefined) =>
  ms === null || ms === undefined ? null : new Date(ms).toISOString();

const DELIVERIES = `SELECT d.id, d.event_id, d.channel, d.target, d.status, d.attempts, d.next_at, d.last_error,
  d.sent_at, e.kind, e.alert_id, e.site_id, e.rule, e.payload, e.created_at
  FROM notification_deliveries d LEFT JOIN notification_events e ON e.event_id = d.event_id`;

/** The deliveries as the API lists them: the event's payload (an alert's text) is not read. */
const LISTED = `SELECT d.id, d.event_id, d.channel, d.target, d.status, d.attempts, d.next_at, d.last_error,
  d.sent_at, e.kind, e.alert_id, e.site_id, e.rule, e.created_at
  FROM notification_deliveries d LEFT JOIN notification_events e ON e.event_id = d.event_id`;

/** An empty filter value (`''`) means no filter, as an absent one does. */
const given = <T>(v: T | undefined): T | undefined => (v === '' ? undefined : v);

export class NotificationQueue {
  private readonly stmts;
  /**
   * Every event up to this id is fanned out (events are never deleted, so ids only grow): a pass reads
   * the events after it, not the whole outbox again. 0 after a start: the first pass reads them all once.
   */
  private fannedUpTo = 0;

  constructor(private readonly db: Database.Database) {
    this.stmts = {
      unfanned: db.prepare(
        `SELECT e.id, e.event_id, e.kind, e.alert_id, e.site_id, e.rule, e.payload, e.created_at
         FROM notification_events e LEFT JOIN notification_fanout f ON f.event_id = e.event_id
         WHERE e.id > ? AND f.event_id IS NULL AND e.event_id IS NOT NULL ORDER BY e.id LIMIT ?`,
      ),
      insertDelivery: db.prepare(
        `INSERT OR IGNORE INTO notification_deliveries (event_id, channel, target, status, attempts, next_at)
         VALUES (?, ?, ?, 'pending', 0, ?)`,
      ),
      markFanned: db.prepare('INSERT OR IGNORE INTO notification_fanout (event_id, fanned_at) VALUES (?, ?)'),
      due: db.prepare(
        `${DELIVERIES} WHERE d.status = 'pending' AND d.next_at <= ? ORDER BY d.next_at, d.id LIMIT ?`,
      ),
      nextDue: db.prepare("SELECT MIN(next_at) AS at FROM notification_deliveries WHERE status = 'pending'"),
      markSent: db.prepare(
        "UPDATE notification_deliveries SET status = 'sent', attempts = ?, sent_at = ? WHERE id = ? AND status = 'pending'",
      ),
      markRetry: db.prepare(
        "UPDATE notification_deliveries SET attempts = ?, next_at = ?, last_error = ? WHERE id = ? AND status = 'pending'",
      ),
      markFailed: db.prepare(
        "UPDATE notification_deliveries SET status = 'failed', attempts = ?, last_error = ? WHERE id = ? AND status = 'pending'",
      ),
      deferTarget: db.prepare(
        `UPDATE notification_deliveries SET next_at = ?
         WHERE status = 'pending' AND channel = ? AND target = ? AND next_at < ? AND id != ?`,
      ),
      requeueOne: db.prepare(
        "UPDATE notification_deliveries SET status = 'pending', attempts = 0, next_at = ? WHERE id = ? AND status = 'failed'",
      ),
      requeueAll: db.prepare(
        "UPDATE notification_deliveries SET status = 'pending', attempts = 0, next_at = ? WHERE status = 'failed'",
      ),
      counts: db.prepare('SELECT status, COUNT(*) AS n FROM notification_deliveries GROUP BY status'),
      oldestPending: db.prepare(
        `SELECT MIN(COALESCE(e.created_at, d.next_at)) AS at
         FROM notification_deliveries d LEFT JOIN notification_events e ON e.event_id = d.event_id
         WHERE d.status = 'pending'`,
      ),
    };
  }

  /** Whether the database is still open (metrics collectors may run after shutdown). */
  get open(): boolean {
    return this.db.open;
  }

  /** Events not yet fanned out, oldest first. */
  unfanned(limit: number): EventRow[] {
    return this.stmts.unfanned.all(this.fannedUpTo, limit) as EventRow[];
  }

  /**
   * Turns events into deliveries, due at `now`, and marks them fanned out, in one transaction.
   * Idempotent: an event, channel and target never get a second delivery. Returns the deliveries created.
   */
  fanOut(events: readonly EventRow[], targetsFor: (ev: EventRow) => DeliveryTarget[], now: number): number {
    const created = this.db.transaction(() => {
      let n = 0;
      for (const ev of events) {
        for (const t of targetsFor(ev))
          n += this.stmts.insertDelivery.run(ev.event_id, t.channel, t.target, now).changes;
        this.stmts.markFanned.run(ev.event_id, now);
      }
      return n;
    })();
    // `unfanned` gave every unfanned event up to the last of these, oldest first: all are fanned out now.
    for (const ev of events) if (ev.id > this.fannedUpTo) this.fannedUpTo = ev.id;
    return created;
  }

  /** Pending deliveries due at `now`, soonest first. */
  due(now: number, limit: number): DeliveryRow[] {
    return this.stmts.due.all(now, limit) as DeliveryRow[];
  }

  /** When the next pending delivery is due, epoch ms; undefined when none is pending. */
  nextDueAt(): number | undefined {
    const r = this.stmts.nextDue.get() as { at: number | null } | undefined;
    return r?.at ?? undefined;
  }

  markSent(id: number, attempts: number, at: number): void {
    this.stmts.markSent.run(attempts, at, id);
  }

  markFailed(id: number, attempts: number, error: string): void {
    this.stmts.markFailed.run(attempts, error, id);
  }

  /**
   * Records a failed attempt to retry at `nextAt`, and holds the target's other pending deliveries
   * until then so that they do not overtake it (one transaction).
   */
  scheduleRetry(row: DeliveryRow, attempts: number, nextAt: number, error: string): void {
    this.db.transaction(() => {
      this.stmts.markRetry.run(attempts, nextAt, error, row.id);
      this.stmts.deferTarget.run(nextAt, row.channel, row.target, nextAt, row.id);
    })();
  }

  /** Puts failed deliveries (all, or the given ids) back in the queue at `now` with a fresh attempt budget. */
  requeueFailed(now: number, ids?: readonly number[]): number {
    if (!ids) return this.stmts.requeueAll.run(now).changes;
    return this.db.transaction(() => {
      let n = 0;
      for (const id of ids) n += this.stmts.requeueOne.run(now, id).changes;
      return n;
    })();
  }

  counts(): DeliveryCounts {
    const c: DeliveryCounts = { pending: 0, failed: 0, sent: 0 };
    for (const r of this.stmts.counts.all() as Array<{ status: DeliveryStatus; n: number }>)
      c[r.status] = r.n;
    return c;
  }

  /** Creation time of the oldest pending delivery's event, epoch ms; undefined when none is pending. */
  oldestPendingAt(): number | undefined {
    const r = this.stmts.oldestPending.get() as { at: number | null } | undefined;
    return r?.at ?? undefined;
  }

  /** Deliveries, newest first, for the API (without the events' payloads, which the list does not show). */
  list(opts: ListOptions = {}): DeliveryView[] {
    const page = pageSql('d.id', 'd.id', opts.page, 'd.id DESC');
    const w = where([
      page.cond,
      sitesIn('e.site_id', opts.siteIds),
      ['d.status = ?', given(opts.status)],
      ['d.channel = ?', given(opts.channel)],
      ['e.site_id = ?', given(opts.siteId)],
      ['d.event_id = ?', given(opts.eventId)],
      ['e.alert_id = ?', given(opts.alertId)],
    ]);
    const limit = Math.min(Math.max(1, Math.trunc(opts.limit ?? 100)), 1000);
    const offset = Math.max(0, Math.trunc(opts.offset ?? 0));
    const rows = (
      opts.page
        ? this.db.prepare(`${LISTED} ${w.sql} ${page.tail}`).all(...w.params)
        : this.db
            .prepare(`${LISTED} ${w.sql} ORDER BY d.id DESC LIMIT ? OFFSET ?`)
            .all(...w.params, limit, offset)
    ) as DeliveryRow[];
    return rows.map((r) => ({
      id: r.id,
      eventId: r.event_id,
      kind: r.kind,
      alertId: r.alert_id,
      siteId: r.site_id,
      rule: r.rule,
      channel: r.channel,
      target: displayTarget(r.channel, r.target),
      status: r.status,
      attempts: r.attempts,
      nextAt: r.status === 'pending' ? iso(r.next_at) : null,
      lastError: r.last_error,
      sentAt: iso(r.sent_at),
      createdAt: iso(r.created_at),
    }));
  }
}
