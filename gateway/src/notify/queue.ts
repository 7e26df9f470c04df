/**
 * The notification tables. `notification_events` is written by the alert engine in the same
 * transaction as each alert change (an outbox); the dispatcher owns the rest. Every statement is
 * idempotent so either side may create the tables first.
 */
import type Database from 'better-sqlite3';
import { z } from 'zod';

export const NOTIFICATION_KINDS = ['raise', 'reminder', 'overdue', 'extension', 'resolve'] as const;
export const notificationKindSchema = z.enum(NOTIFICATION_KINDS);
export type NotificationKind = z.infer<typeof notificationKindSchema>;

export const CHANNELS = ['mqtt', 'webhook', 'email'] as const;
export const channelSchema = z.enum(CHANNELS);
export type Channel = z.infer<typeof channelSchema>;

export const DELIVERY_STATUSES = ['pending', 'sent', 'failed'] as const;
export const deliveryStatusSchema = z.enum(DELIVERY_STATUSES);
export type DeliveryStatus = z.infer<typeof deliveryStatusSchema>;

/**
 * The alert DTO carried in an event's payload (PRODUCT.md, Interfaces: times in ISO 8601 UTC).
 * Loose on purpose: fields the engine adds later pass through to MQTT and webhooks untouched.
 */
export const alertDtoSchema = z.looseObject({
  id: z.string(),
  rule: z.string(),
  siteId: z.string(),
  deviceId: z.string().nullish(),
  status: z.string(),
  overdue: z.boolean().default(false),
  raisedAt: z.string().nullish(),
  dueAt: z.string().nullish(),
  message: z.string().default(''),
  evidence: z.unknown().optional(),
  history: z.array(z.unknown()).default([]),
});
export type AlertDto = z.infer<typeof alertDtoSchema>;

export interface NotificationEventInput {
  eventId: string;
  kind: NotificationKind;
  alert: AlertDto;
  createdAt: number;
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
      JSON.stringify(ev.alert),
      ev.createdAt,
    );
  return r.changes === 1;
}

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

/** A delivery joined with its event. */
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
