/**
 * The external-broker MQTT input: the gateway as a client of Mosquitto (or any MQTT 5 broker).
 *
 * Delivery guarantees
 * - Persistent session: a fixed client id, clean start off and a long session expiry, so the
 *   broker queues QoS 1 messages while the gateway is away and redelivers unacknowledged ones.
 * - Acknowledge after store: mqtt.js hands every received PUBLISH to `client.handleMessage`
 *   one at a time and would send the QoS 1 PUBACK when its callback is called without an error,
 *   which allows one message in flight. The gateway calls the callback at once with an error
 *   (no PUBACK; mqtt.js reads on) and sends each PUBACK itself once `sink.ingest()` has resolved,
 *   i.e. after the group commit (externalAcks.ts), so many messages share one commit. A crash, a lost
 *   connection or a failing store before that means no PUBACK, and the broker redelivers.
 * - Messages are ingested in arrival order, many at once (up to `maxInFlight`); PUBACKs go out in
 *   arrival order, as MQTT requires.
 * - Failover: with several broker URLs (the nodes of a cluster) every reconnect tries the next one
 *   (mqtt.js `servers`); the session, kept by the cluster, resumes on whichever node answers.
 * - A PUBACK is never sent on a different network connection than the one the PUBLISH came
 *   on (mqtt.js would otherwise queue it and send it after the reconnect, where the same
 *   packet id may name another message).
 * - Subscriptions (QoS 1) are made again on every connect, whatever the broker says about the
 *   session. No topic alias maximum is advertised, so every PUBLISH carries its full topic.
 *
 * start(): resolves once connected and subscribed for the first time, or, when the broker
 * cannot be reached, after `startTimeoutMs` (default 5 s) with a warning: the client keeps
 * retrying in the background and health() reports ok:false until it connects, so the rest of
 * the gateway (store, API, serial inputs) comes up while the broker is still starting.
 * It rejects for faults that retrying cannot fix: the broker refuses the credentials or
 * the client id, the TLS certificate is not trusted, or the subscriptions are refused.
 *
 * The connection and what each connect does live in externalSession.ts, the handling of each message in
 * externalDelivery.ts.
 */
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { gatewayStatusTopic } from '../../../../shared/src/topics.ts';
import type { Registry } from '../../metrics.ts';
import type { ComponentHealth, IngestSink, Input, Log } from '../../pipeline.ts';
import { within } from '../wait.ts';
import { Delivery, type DeviceStatusHandler } from './externalDelivery.ts';
import { BrokerSession } from './externalSession.ts';
import { failoverServers } from './failover.ts';
import { GATEWAY_STATUS_PUBLISH, gatewayStatusPayload } from './gatewayStatus.ts';
import { redactor, redactUrl } from './redact.ts';
import { STATUS_FILTER, TELEMETRY_FILTER } from './topicFilters.ts';

export interface ExternalMqttOptions {
  /**
   * mqtt://host:1883, mqtts://host:8883, ws://... Credentials in the URL are accepted but never shown.
   * Several (the nodes of a broker cluster): the client connects to the first and moves on to the next
   * whenever a connection is lost or cannot be made (mqtt:// and mqtts:// only).
   */
  url: string | readonly string[];
  /** MQTT 5 (default) or 3.1.1 (4: brokers that speak only that, such as NATS). */
  protocolVersion?: 4 | 5;
  /** Subscribe to these sites' telemetry and status only (default: every site's). */
  siteIds?: readonly string[];
  /** QoS 1 messages being stored at once; under MQTT 5 also the Receive Maximum asked of the broker. Default 2000. */
  maxInFlight?: number;
  gatewayId: string;
  /** Fixed client id: the broker keeps the session under it. Default `gateway-{gatewayId}`. */
  clientId?: string;
  username?: string;
  password?: string;
  /** TLS: trusted CA, and a client certificate and key when the broker asks for one. */
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  metrics: Registry;
  log: Log;
  onDeviceStatus?: DeviceStatusHandler;
  /** How long start() waits for the first connection before resolving anyway. Default 5000. */
  startTimeoutMs?: number;
  /** First reconnect delay; doubles per failed attempt up to maxReconnectPeriodMs. Default 1000. */
  reconnectPeriodMs?: number;
  /** Default 15000. */
  maxReconnectPeriodMs?: number;
  /** Default 10000. */
  connectTimeoutMs?: number;
  /** Default 30. */
  keepaliveSec?: number;
  /** How long the broker keeps the session (and queues messages) while the gateway is away. Default 30 days. */
  sessionExpirySec?: number;
  /** Upper bound for stop(): waiting for the message being stored, the offline status and the disconnect. Default 5000. */
  stopTimeoutMs?: number;
}

/** The filters for the sites this gateway owns, or for every site. */
function subscriptionFilters(siteIds: readonly string[] | undefined): string[] {
  if (!siteIds) return [TELEMETRY_FILTER, STATUS_FILTER];
  return siteIds.flatMap((id) => [`sites/${id}/devices/+/telemetry`, `sites/${id}/devices/+/status`]);
}

export class ExternalMqttInput implements Input {
  readonly name = 'mqtt-external';

  /** A site added live: its devices' topics are subscribed to at once (and on every connect after). */
  siteAdded(siteId: string): Promise<void> {
    return this.session.addFilters(subscriptionFilters([siteId]));
  }

  private readonly clientId: string;
  private readonly urls: string[];
  private readonly statusTopic: string;
  private readonly safeUrl: string;
  private readonly redact: (e: unknown) => string;
  private readonly baseReconnectMs: number;
  private readonly session: BrokerSession;
  private readonly delivery: Delivery;

  private client: MqttClient | undefined;
  private stopPromise: Promise<void> | undefined;

  constructor(private readonly opts: ExternalMqttOptions) {
    this.clientId = opts.clientId || `gateway-${opts.gatewayId}`;
    this.statusTopic = gatewayStatusTopic(opts.gatewayId);
    const urls = typeof opts.url === 'string' ? [opts.url] : [...opts.url];
    if (urls.length === 0) throw new Error('mqtt-external: no broker url');
    this.urls = urls;
    this.safeUrl = urls.map(redactUrl).join(', ');
    this.redact = redactor(urls, opts.password);
    this.baseReconnectMs = opts.reconnectPeriodMs ?? 1000;
    this.session = new BrokerSession({
      clientId: this.clientId,
      statusTopic: this.statusTopic,
      safeUrl: this.safeUrl,
      username: opts.username,
      baseReconnectMs: this.baseReconnectMs,
      filters: subscriptionFilters(opts.siteIds),
      protocolVersion: opts.protocolVersion ?? 5,
      maxReconnectMs: Math.max(this.baseReconnectMs, opts.maxReconnectPeriodMs ?? 15_000),
      metrics: opts.metrics,
      log: opts.log,
      redact: this.redact,
    });
    this.delivery = new Delivery({
      session: this.session,
      metrics: opts.metrics,
      log: opts.log,
      redact: this.redact,
      onDeviceStatus: opts.onDeviceStatus,
      ...(opts.maxInFlight ? { maxInFlight: opts.maxInFlight } : {}),
    });
  }

  start(sink: IngestSink): Promise<void> {
    if (this.client) return Promise.reject(new Error('mqtt-external: already started'));
    this.delivery.deliverTo(sink);
    const o = this.opts;
    const v5 = (o.protocolVersion ?? 5) === 5;
    const options: IClientOptions = {
      clientId: this.clientId,
      protocolVersion: v5 ? 5 : 4,
      clean: false,
      // No table of all 65,536 packet ids as Buffers (6 MB of heap): see embedded.ts.
      writeCache: false,
      ...(v5
        ? {
            properties: {
              sessionExpiryInterval: o.sessionExpirySec ?? 30 * 24 * 3600,
              receiveMaximum: o.maxInFlight ?? 2000,
            },
          }
        : {}),
      ...failoverServers(this.urls),
      keepalive: o.keepaliveSec ?? 30,
      connectTimeout: o.connectTimeoutMs ?? 10_000,
      reconnectPeriod: this.baseReconnectMs,
      reconnectOnConnackError: true,
      resubscribe: false,
      manualConnect: true,
      will: {
        topic: this.statusTopic,
        payload: Buffer.from(JSON.stringify({ status: 'offline' })),
        qos: 1,
        retain: true,
      },
    };
    if (o.username !== undefined) options.username = o.username;
    if (o.password !== undefined) options.password = o.password;
    if (o.ca) options.ca = o.ca;
    if (o.cert) options.cert = o.cert;
    if (o.key) options.key = o.key;

    let client: MqttClient;
    try {
      client = mqtt.connect(this.urls[0]!, options);
    } catch (e) {
      return Promise.reject(
        new Error(`mqtt-external: cannot use broker url ${this.safeUrl}: ${this.redact(e)}`),
      );
    }
    this.client = client;
    client.handleMessage = (packet, callback) => this.delivery.handle(packet, callback);
    this.delivery.acks.use(client);
    this.session.attach(client);

    const started = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (!this.session.startSettle) return;
        this.session.startSettle = undefined;
        o.log.warn(
          { url: this.safeUrl, clientId: this.clientId, error: this.session.lastError },
          'mqtt-external: broker not reachable yet; starting anyway and retrying in the background',
        );
        resolve();
      }, o.startTimeoutMs ?? 5000);
      this.session.startSettle = (err) => {
        clearTimeout(timer);
        this.session.startSettle = undefined;
        if (err) reject(err);
        else resolve();
      };
    });
    o.log.info({ url: this.safeUrl, clientId: this.clientId }, 'mqtt-external: connecting');
    client.connect();
    return started.catch(async (err: unknown) => {
      await this.shutdownClient(client, true);
      this.client = undefined;
      this.session.detach();
      throw err;
    });
  }

  async stop(): Promise<void> {
    if (!this.stopPromise) this.stopPromise = this.doStop();
    return this.stopPromise;
  }

  /**
   * Publishes as the gateway (alert notifications on `alerts/{siteId}/{rule}`). Rejects at once when
   * not connected, and when the broker has not acknowledged a QoS 1 publish within `timeoutMs`, so
   * the caller can retry from its own store; a retry may deliver twice (at least once).
   */
  async publish(
    topic: string,
    payload: string | Buffer,
    opts: { retain?: boolean; qos?: 0 | 1; timeoutMs?: number } = {},
  ): Promise<void> {
    const client = this.client;
    if (!client || !this.session.connected || this.session.stopping)
      throw new Error(`mqtt-external: not connected to ${this.safeUrl}`);
    const sent = client.publishAsync(topic, payload, { qos: opts.qos ?? 1, retain: opts.retain ?? false });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`mqtt-external: publish to ${topic} not acknowledged in time`)),
        opts.timeoutMs ?? 10_000,
      );
    });
    try {
      await Promise.race([sent, timeout]);
    } finally {
      clearTimeout(timer);
      sent.catch((e: unknown) =>
        this.opts.log.debug({ topic, error: this.redact(e) }, 'mqtt-external: publish failed'),
      );
    }
  }

  health(): ComponentHealth {
    const { connected, subscribed, reconnects, lastError, broker } = this.session;
    const ingestFailing = this.delivery.ingestFailing;
    const h: ComponentHealth = {
      name: 'mqtt',
      ok: connected && subscribed && ingestFailing === undefined,
      detail: this.safeUrl,
      transport: 'external',
      clientId: this.clientId,
      connected,
      subscribed,
      reconnects,
      ...(broker ? { broker } : {}),
    };
    if (!connected && lastError) h.lastError = lastError;
    if (ingestFailing) h.ingestError = ingestFailing;
    return h;
  }

  private async doStop(): Promise<void> {
    const client = this.client;
    this.session.stopping = true;
    this.session.startSettle?.();
    if (!client) return;
    const limit = this.opts.stopTimeoutMs ?? 5000;
    const deadline = Date.now() + limit;
    const left = () => Math.max(0, deadline - Date.now());
    if (!(await this.delivery.drained(left())))
      this.opts.log.warn(
        'mqtt-external: stopping while a message is still being stored; it stays unacknowledged',
      );
    if (this.session.connected) {
      const offline = client.publishAsync(
        this.statusTopic,
        gatewayStatusPayload('offline', Date.now()),
        GATEWAY_STATUS_PUBLISH,
      );
      offline.catch((e: unknown) =>
        this.opts.log.warn({ error: this.redact(e) }, 'mqtt-external: could not publish offline status'),
      );
      if (!(await within(offline, left())))
        this.opts.log.warn('mqtt-external: offline status not acknowledged before the stop timeout');
    }
    await this.shutdownClient(client, false, left());
    this.session.detach();
    this.opts.log.info({ url: this.safeUrl }, 'mqtt-external: stopped');
  }

  private async shutdownClient(client: MqttClient, force: boolean, timeoutMs = 2000): Promise<void> {
    const ended = client.endAsync(force);
    ended.catch((e: unknown) =>
      this.opts.log.warn({ error: this.redact(e) }, 'mqtt-external: error while disconnecting'),
    );
    if (!(await within(ended, Math.max(timeoutMs, 100))) && !force) {
      this.opts.log.warn('mqtt-external: clean disconnect timed out; closing the connection');
      await within(client.endAsync(true), 1000);
    }
  }
}
