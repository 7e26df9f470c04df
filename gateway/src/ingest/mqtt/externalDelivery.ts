/**
 * The external input's message handling: each PUBLISH is handed to the sink in arrival order, many at
 * once (the ingest stage's group commit takes them together), and a QoS 1 one is acknowledged
 * (externalAcks.ts: PUBACKs in arrival order) only once the sink has stored it, and only on the
 * connection it came on. While the store fails, the
 * message is retried for as long as that connection lasts; then it stays unacknowledged and the broker
 * redelivers it. A device status also goes to the status handler, once stored.
 */
import type { IPublishPacket } from 'mqtt';
import { parseDeviceTopic } from '../../../../shared/src/topics.ts';
import { type DeviceStatus, parseDeviceStatus } from '../../decode/status.ts';
import type { Counter, Registry } from '../../metrics.ts';
import type { IngestSink, Log, RawMessage } from '../../pipeline.ts';
import { sleep, within } from '../wait.ts';
import { AckQueue, DEFERRED } from './externalAcks.ts';

type Kind = 'telemetry' | 'status' | 'other';

export type DeviceStatusHandler = (
  siteId: string,
  deviceId: string,
  status: DeviceStatus,
  at: number,
) => void;

export interface DeliveryOptions {
  /** The connection: which one is current, and whether the input is stopping. */
  session: { readonly epoch: number; readonly stopping: boolean };
  metrics: Registry;
  log: Log;
  redact: (e: unknown) => string;
  onDeviceStatus: DeviceStatusHandler | undefined;
  /** At most this many messages being stored at once before mqtt.js is asked to wait. Default 2000. */
  maxInFlight?: number;
  /** Every message is of this kind (a network server's uplinks), not read from the gateway's own topics. */
  kind?: string;
}

export class Delivery {
  private sink: IngestSink | undefined;
  /** Messages whose storing has not finished. */
  private readonly pending = new Set<Promise<void>>();
  /** mqtt.js callbacks held back while `maxInFlight` messages are being stored (it reads nothing meanwhile). */
  private readonly blocked: Array<() => void> = [];
  private readonly maxInFlight: number;
  /** The QoS 1 acknowledgements, sent once stored. */
  readonly acks = new AckQueue();
  private failing: string | undefined;
  private readonly mMessages: Counter;
  private readonly mIngestErrors: Counter;

  constructor(private readonly o: DeliveryOptions) {
    this.maxInFlight = o.maxInFlight ?? 2000;
    this.mMessages = o.metrics.counter('gateway_mqtt_messages_total', 'MQTT messages received, by kind');
    this.mIngestErrors = o.metrics.counter(
      'gateway_mqtt_ingest_errors_total',
      'MQTT messages whose storing failed (left unacknowledged and retried)',
    );
  }

  /** Where messages go from now on. */
  deliverTo(sink: IngestSink): void {
    this.sink = sink;
  }

  /** The store's error while storing fails, undefined when it works. */
  get ingestFailing(): string | undefined {
    return this.failing;
  }

  /** Resolves true once every message being stored has been, false when `ms` passes first. */
  drained(ms: number): Promise<boolean> {
    return within(Promise.all(this.pending), ms);
  }

  /**
   * mqtt.js's handleMessage. The callback is called at once (QoS 1: with DEFERRED, so mqtt.js sends no
   * PUBACK and reads the next packet) while fewer than `maxInFlight` messages are being stored, else
   * once one of them is, so a broker sending faster than the store commits is read no faster. A QoS 1
   * message is acknowledged through the AckQueue once stored, in arrival order, on its own connection.
   */
  handle(packet: IPublishPacket, callback: (err?: Error) => void): void {
    const { session, log, redact } = this.o;
    const epoch = session.epoch;
    if (session.stopping || !this.sink) {
      callback(new Error('mqtt-external: stopping; message left unacknowledged for redelivery'));
      return;
    }
    const settle =
      packet.qos === 1 && packet.messageId !== undefined
        ? this.acks.open(packet.messageId, epoch)
        : undefined;
    const run = this.process(packet, epoch).then(
      (stored) => settle?.(stored, session.epoch),
      (err: unknown) => {
        log.error({ error: redact(err) }, 'mqtt-external: message handling failed');
        settle?.(false, session.epoch);
      },
    );
    this.pending.add(run);
    void run.finally(() => {
      this.pending.delete(run);
      this.blocked.shift()?.();
    });
    const next = () => callback(settle ? DEFERRED : undefined);
    if (this.pending.size <= this.maxInFlight) next();
    else this.blocked.push(next);
  }

  /** Stores one message, retrying while the store fails and the connection lasts. Resolves true once stored. */
  private async process(packet: IPublishPacket, epoch: number): Promise<boolean> {
    const { session, log } = this.o;
    const sink = this.sink!;
    const topic = packet.topic;
    const payload = typeof packet.payload === 'string' ? Buffer.from(packet.payload) : packet.payload;
    const receivedAt = Date.now();
    const parsed: ReturnType<typeof parseDeviceTopic> | { kind: 'other' } =
      this.o.kind === undefined ? parseDeviceTopic(topic) : { kind: 'other' };
    const kind: Kind | string = this.o.kind ?? parsed.kind;
    this.mMessages.inc({ kind });
    const msg: RawMessage = { transport: 'mqtt', topic, payload, receivedAt };
    let delay = 200;
    for (;;) {
      try {
        await sink.ingest(msg);
        if (this.failing !== undefined) {
          log.info('mqtt-external: storing messages works again');
          this.failing = undefined;
        }
        break;
      } catch (e) {
        this.mIngestErrors.inc();
        const error = this.o.redact(e);
        if (this.failing === undefined)
          log.error(
            { topic, error },
            'mqtt-external: storing a message failed; it stays unacknowledged and is retried',
          );
        this.failing = error;
        if (session.stopping || epoch !== session.epoch) {
          if (packet.qos === 0) log.warn({ topic }, 'mqtt-external: a QoS 0 message could not be stored');
          return false;
        }
        await sleep(delay);
        delay = Math.min(delay * 2, 5000);
      }
    }
    if (parsed.kind === 'status')
      this.statusStored(topic, parsed.siteId, parsed.deviceId, payload, receivedAt);
    return true;
  }

  private statusStored(topic: string, siteId: string, deviceId: string, payload: Buffer, receivedAt: number) {
    const handler = this.o.onDeviceStatus;
    if (!handler) return;
    const st = parseDeviceStatus(payload, receivedAt);
    if (st.ok) {
      try {
        handler(siteId, deviceId, st.status, st.at);
      } catch (e) {
        this.o.log.error({ topic, error: this.o.redact(e) }, 'mqtt-external: device status handler failed');
      }
    } else if (payload.length > 0) {
      this.o.log.debug({ topic, reason: st.reason }, 'mqtt-external: unrecognised device status payload');
    }
  }
}
