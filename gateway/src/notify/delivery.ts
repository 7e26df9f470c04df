/**
 * A queued delivery as the channels see it: the row with its event's payload read. A payload that
 * cannot be read fails the delivery permanently: sending it again would fail the same way.
 */
import { type AlertDto, alertDtoSchema } from '../../../shared/src/api/alerts.ts';
import { DeliveryError, type SendFailure } from './errors.ts';
import type { Channel, DeliveryRow } from './queue.ts';

export interface Delivery {
  id: number;
  eventId: string;
  kind: string;
  channel: Channel;
  /** MQTT topic, webhook URL or e-mail address. */
  target: string;
  /** The event's columns, as the engine recorded them next to the payload. */
  alertId: string | null;
  siteId: string | null;
  rule: string | null;
  /** The alert as stored in the payload: parsed JSON, not validated (MQTT and webhooks pass it on as is). */
  alert: unknown;
  /** What MQTT and webhooks carry: `{"event": kind, "eventId", "alert"}`. */
  body: string;
}

const permanent = (message: string): SendFailure => ({ ok: false, permanent: true, message });

/** The delivery of a queue row, or the permanent failure of a row whose event is missing or unreadable. */
export function readDelivery(row: DeliveryRow): Delivery | SendFailure {
  if (row.payload === null || row.kind === null) return permanent('the event is missing from the store');
  let alert: unknown;
  try {
    alert = JSON.parse(row.payload);
  } catch (e) {
    return permanent(`the event payload is not JSON (${e instanceof Error ? e.message : 'error'})`);
  }
  return {
    id: row.id,
    eventId: row.event_id,
    kind: row.kind,
    channel: row.channel,
    target: row.target,
    alertId: row.alert_id,
    siteId: row.site_id,
    rule: row.rule,
    alert,
    body: JSON.stringify({ event: row.kind, eventId: row.event_id, alert }),
  };
}

/**
 * The payload's alert as an alert DTO (the contract's, `shared/src/api/alerts.ts`), for the channels that read its fields (e-mail).
 * The event's own columns fill in `id`, `rule` and `siteId` when the payload lacks them; the payload
 * wins where both are present. Throws a permanent DeliveryError naming the fields that do not fit.
 */
export function storedAlert(d: Delivery): AlertDto {
  const base = { id: d.alertId, rule: d.rule, siteId: d.siteId };
  const parsed = alertDtoSchema.safeParse(
    d.alert && typeof d.alert === 'object' ? { ...base, ...d.alert } : base,
  );
  if (!parsed.success)
    throw new DeliveryError(
      `the alert in the event payload is not an alert DTO: ${parsed.error.issues
        .map((i) => `${i.path.join('.')}: ${i.message}`)
        .join('; ')}`,
      true,
    );
  return parsed.data;
}
