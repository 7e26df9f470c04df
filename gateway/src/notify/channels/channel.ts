/**
 * What every notification channel (MQTT, webhook, e-mail) implements: one send per delivery, telling
 * the dispatcher whether it went out, failed for now (retried with backoff) or failed for good.
 */
import type { Delivery } from '../delivery.ts';
import type { SendOutcome } from '../errors.ts';

export interface NotificationChannel {
  /** Never rejects: every failure is an outcome (see errors.ts, outcomeOf). */
  send(delivery: Delivery): Promise<SendOutcome>;
}

/**
 * The channel of a transport that is not configured. Retrying cannot make it succeed, so each
 * delivery fails at once, visibly (health, metrics, the API), with the reason; POST
 * /api/notifications/retry sends it again once the channel is configured. It is not a fault: the
 * dispatcher logs it at debug level (the notification stage says at start which channels are off).
 */
export function unconfiguredChannel(reason: string): NotificationChannel {
  return { send: async () => ({ ok: false, permanent: true, unconfigured: true, message: reason }) };
}
