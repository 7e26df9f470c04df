/**
 * MQTT delivery: one message per event, QoS 1, on `alerts/{siteId}/{rule}` (the delivery's target),
 * payload `{"event": kind, "eventId", "alert"}`. Success is the broker's PUBACK.
 */
import type { Delivery } from '../delivery.ts';
import { outcomeOf } from '../errors.ts';
import { type NotificationChannel, unconfiguredChannel } from './channel.ts';

export interface MqttPublisher {
  /** Resolves once the broker has the message (QoS 1 PUBACK); rejects otherwise. */
  publish(topic: string, payload: string): Promise<void>;
}

export function mqttChannel(publisher: MqttPublisher | undefined): NotificationChannel {
  if (!publisher) return unconfiguredChannel('no MQTT channel is configured');
  return { send: (d: Delivery) => outcomeOf(() => publisher.publish(d.target, d.body)) };
}
