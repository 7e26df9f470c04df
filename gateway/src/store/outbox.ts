/**
 * The notification outbox's write side: the alert engine appends one event per alert change with
 * recordNotificationEvent(), in the same transaction as the change; the notification queue
 * (notify/queue.ts) reads and delivers them. The table's DDL is in store/schema/.
 */
import type Database from 'better-sqlite3';
import {
  type AlertDto,
  type InspectionDto,
  NOTIFIED_HISTORY,
  type NotificationKind,
} from '../../../shared/src/api/alerts.ts';

export interface NotificationEventInput {
  eventId: string;
  kind: NotificationKind;
  alert: AlertDto;
  createdAt: number;
}

/**
 * The alert as an event carries it: with its latest NOTIFIED_HISTORY history entries, and how many earlier
 * ones it leaves out (`historyOmitted`), so that an event's size does not grow with the alert's history
 * (every change of a long-lived alert once copied its whole history, every note in it, again).
 */
export function notifiedAlert(alert: AlertDto): AlertDto {
  const omitted = alert.history.length - NOTIFIED_HISTORY;
  if (omitted <= 0) return alert;
  return { ...alert, history: alert.history.slice(-NOTIFIED_HISTORY), historyOmitted: omitted };
}

/**
 * Appends one event to the outbox. Call it inside the transaction that changes the alert.
 * Returns false when an event with this id is already recorded (idempotent).
 */
export function recordNotificationEvent(db: Database.Database, ev: NotificationEventInput): boolean {
  const r = db
    .prepare(
      `INSERT OR IGNORE INTO notification_events (event_id, kind, alert_id, site_id, rule, payload, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      ev.eventId,
      ev.kind,
      ev.alert.id,
      ev.alert.siteId,
      ev.alert.rule,
      JSON.stringify(notifiedAlert(ev.alert)),
      ev.createdAt,
    );
  return r.changes === 1;
}

/**
 * Appends a notice of violation to the outbox, to be served by e-mail on the site's developer and owner
 * (kind `violation`, `alert_id` the notice's id, no rule; the payload is the notice). Call it inside the
 * transaction that records the notice. Returns false when already recorded.
 */
export function recordViolationEvent(
  db: Database.Database,
  ev: { eventId: string; violation: { id: string; siteId: string }; createdAt: number },
): boolean {
  const r = db
    .prepare(
      `INSERT OR IGNORE INTO notification_events (event_id, kind, alert_id, site_id, rule, payload, created_at)
       VALUES (?, 'violation', ?, ?, '', ?, ?)`,
    )
    .run(ev.eventId, ev.violation.id, ev.violation.siteId, JSON.stringify(ev.violation), ev.createdAt);
  return r.changes === 1;
}

/**
 * The event id of a stop-work order served on the parties (`issued`: its first delivery to a party is its
 * service) or of the notice that it is lifted (`lifted`).
 */
export const stopWorkEventId = (orderId: string, step: 'issued' | 'lifted'): string =>
  step === 'issued' ? `stop-work:${orderId}` : `stop-work-lifted:${orderId}`;

/**
 * Appends a stop-work order (or its lifting) to the outbox, to be served by e-mail on the site's developer
 * and owner and the parties on file (kind `stop-work`, `alert_id` the order's id, no rule; the payload is
 * the order as served, with the parties). Call it inside the transaction that records the order or its
 * lifting. Returns false when already recorded.
 */
export function recordStopWorkEvent(
  db: Database.Database,
  ev: { step: 'issued' | 'lifted'; order: { id: string; siteId: string }; createdAt: number },
): boolean {
  const r = db
    .prepare(
      `INSERT OR IGNORE INTO notification_events (event_id, kind, alert_id, site_id, rule, payload, created_at)
       VALUES (?, 'stop-work', ?, ?, '', ?, ?)`,
    )
    .run(
      stopWorkEventId(ev.order.id, ev.step),
      ev.order.id,
      ev.order.siteId,
      JSON.stringify(ev.order),
      ev.createdAt,
    );
  return r.changes === 1;
}

/** The event id of an inspection's report delivered to the officer. */
export const inspectionReportEventId = (inspectionId: string): string => `inspection-report:${inspectionId}`;

/**
 * Appends an inspection's report to the outbox, to be delivered by e-mail to the site's officers (kind
 * `inspection-report`, `alert_id` the inspection's id, no rule; the payload is the inspection). Call it
 * inside the transaction that records the inspection. Returns false when already recorded.
 */
export function recordInspectionReportEvent(
  db: Database.Database,
  ev: { inspection: InspectionDto; createdAt: number },
): boolean {
  const r = db
    .prepare(
      `INSERT OR IGNORE INTO notification_events (event_id, kind, alert_id, site_id, rule, payload, created_at)
       VALUES (?, 'inspection-report', ?, ?, '', ?, ?)`,
    )
    .run(
      inspectionReportEventId(ev.inspection.id),
      ev.inspection.id,
      ev.inspection.siteId,
      JSON.stringify(ev.inspection),
      ev.createdAt,
    );
  return r.changes === 1;
}
