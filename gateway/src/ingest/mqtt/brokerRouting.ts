import type { Aedes, Client, PublishPacket } from 'aedes';
import { parseDeviceTopic } from '../../../../shared/src/topics.ts';
import { filtersIntersect, TELEMETRY_FILTER } from './topicFilters.ts';

type PublishFn = (packet: PublishPacket, client: Client | null, done?: (err?: Error) => void) => void;

/**
 * The gateway consumes device telemetry itself. Until some client subscribes to a filter that can match
 * a telemetry topic, the broker need not route each telemetry publish to subscribers, offline sessions
 * and retained storage: that routing is most of a broker's cost per message. From the first such
 * subscription on, every publish is routed as usual, except one the gateway refused as oversize.
 */
export class TelemetryRouting {
  /** Whether any client has subscribed to a filter that can match device telemetry. */
  private watched = false;
  /** Publishes the gateway refused and routes to no one (a payload over ingest.maxPayloadBytes). */
  private readonly dropped = new WeakSet<object>();

  /** A publish not to be routed. */
  drop(packet: PublishPacket): void {
    this.dropped.add(packet);
  }

  /** A subscription was granted. */
  granted(filter: string): void {
    if (filtersIntersect(filter, TELEMETRY_FILTER)) this.watched = true;
  }

  /** Wraps the broker's routing of publishes. */
  install(broker: Aedes): void {
    const b = broker as unknown as { publish: PublishFn };
    const route = b.publish.bind(broker);
    b.publish = (packet, client, done) => {
      if (this.dropped.has(packet)) {
        done?.();
        return;
      }
      if (
        !this.watched &&
        client &&
        typeof client === 'object' &&
        !packet.retain &&
        parseDeviceTopic(packet.topic).kind === 'telemetry'
      ) {
        done?.();
        return;
      }
      route(packet, client, done);
    };
  }
}
