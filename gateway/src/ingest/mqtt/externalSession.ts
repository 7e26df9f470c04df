/**
 * The external input's connection to the broker: what is done on every connect (subscribe again, with
 * QoS 1, whatever the broker says about the session, then announce the gateway online), how a lost
 * connection and the reconnect attempts are tracked and logged, and which errors end start() because
 * retrying cannot fix them (credentials or client id refused, TLS certificate not trusted, subscriptions
 * refused).
 */
import type { IConnackPacket, MqttClient } from 'mqtt';
import type { Gauge, Registry } from '../../metrics.ts';
import type { Log } from '../../pipeline.ts';
import { GATEWAY_STATUS_PUBLISH, gatewayStatusPayload } from './gatewayStatus.ts';

/**
 * Connection refusals that retrying cannot fix: MQTT 5 reason codes (client id, credentials,
 * authorization, ban, auth method) and MQTT 3.1.1 return codes (identifier, credentials, authorization).
 */
const FATAL_CONNACK = new Set([0x85, 0x86, 0x87, 0x8a, 0x8c, 2, 4, 5]);
const TLS_TRUST_ERROR = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ERR_TLS/;

/** A fault that ends start(): retrying cannot fix it. */
export class StartError extends Error {}

export interface BrokerSessionOptions {
  clientId: string;
  /** Where the gateway announces itself. */
  statusTopic: string;
  /** The broker URL without credentials. */
  safeUrl: string;
  /** Named when the broker refuses the subscriptions. */
  username: string | undefined;
  /** First reconnect delay; doubles per failed attempt up to maxReconnectMs. */
  baseReconnectMs: number;
  maxReconnectMs: number;
  /** What to subscribe to (QoS 1) on every connect. */
  filters: readonly string[];
  /** MQTT 3.1.1 (4) has no retain handling option. */
  protocolVersion: 4 | 5;
  metrics: Registry;
  log: Log;
  redact: (e: unknown) => string;
  /** Announce the gateway online on every connect (default true; not on a broker of another system). */
  announce?: boolean;
  /** Labels of this session's connection metrics, when the gateway holds more than one session. */
  metricLabels?: Record<string, string>;
}

export class BrokerSession {
  /** Incremented whenever a network connection closes: PUBACKs only go out on the connection they belong to. */
  epoch = 0;
  connected = false;
  subscribed = false;
  reconnects = 0;
  /** host:port of the broker (cluster node) connected to, or last connected to. */
  broker: string | undefined;
  lastError: string | undefined;
  /** Set once stop() has begun: nothing is acknowledged, announced or retried from then on. */
  stopping = false;
  /** Settles start() while it waits for the first connection and subscription. */
  startSettle: ((err?: Error) => void) | undefined;

  private client: MqttClient | undefined;
  /** What is subscribed on every connect: the configured filters and those added since. */
  private readonly filters: string[];
  private everConnected = false;
  private disconnectedAt = 0;
  private lastLoggedError: string | undefined;
  private readonly mConnected: Gauge;
  private readonly mReconnects;

  constructor(private readonly o: BrokerSessionOptions) {
    this.filters = [...o.filters];
    this.mConnected = o.metrics.gauge(
      'gateway_mqtt_connected',
      'Whether the gateway is connected to the MQTT broker (1) or not (0)',
    );
    this.mReconnects = o.metrics.counter(
      'gateway_mqtt_reconnects_total',
      'Connections to the MQTT broker re-established after a loss',
    );
    this.mConnected.set(0, this.o.metricLabels);
  }

  /**
   * Subscribes to more filters (a site added live): at once when connected, and on every connect after.
   * A refusal is logged and kept as the session's last error; the next connect tries again.
   */
  async addFilters(filters: readonly string[]): Promise<void> {
    const fresh = filters.filter((f) => !this.filters.includes(f));
    if (fresh.length === 0) return;
    this.filters.push(...fresh);
    const client = this.client;
    if (!client || !this.connected) return;
    const opts = this.subscribeOptions();
    try {
      const granted = await client.subscribeAsync(Object.fromEntries(fresh.map((f) => [f, opts])));
      const refused = granted.filter((g) => g.qos >= 0x80).map((g) => g.topic);
      if (refused.length) {
        this.lastError = `the broker refused the subscription to ${refused.join(', ')}`;
        this.o.log.error({ filters: refused }, `mqtt-external: ${this.lastError}`);
      } else this.o.log.info({ filters: fresh }, 'mqtt-external: subscribed to a site added live');
    } catch (e) {
      this.o.log.error(
        { err: this.o.redact(e), filters: fresh },
        'mqtt-external: subscribing a site added live failed; tried again at the next connect',
      );
    }
  }

  /** QoS 1; with MQTT 5, retained messages only on a new subscription (3.1.1 has no retain handling). */
  private subscribeOptions(): { qos: 1; rh?: number } {
    return this.o.protocolVersion === 5 ? { qos: 1, rh: 1 } : { qos: 1 };
  }

  /** Follows a client's connection events. */
  attach(client: MqttClient): void {
    this.client = client;
    client.on('connect', (connack) => this.onConnect(client, connack));
    client.on('close', () => this.onClose());
    client.on('reconnect', () => this.onReconnectAttempt(client));
    client.on('error', (err) => this.onError(err));
  }

  /** The client is gone (stopped, or start() failed). */
  detach(): void {
    this.client = undefined;
    this.connected = false;
    this.subscribed = false;
    this.mConnected.set(0, this.o.metricLabels);
  }

  private onConnect(client: MqttClient, connack: IConnackPacket): void {
    if (client !== this.client || this.stopping) return;
    const { log, safeUrl, clientId } = this.o;
    const wasConnected = this.everConnected;
    this.connected = true;
    this.everConnected = true;
    this.lastError = undefined;
    this.lastLoggedError = undefined;
    client.options.reconnectPeriod = this.o.baseReconnectMs;
    this.mConnected.set(1, this.o.metricLabels);
    const session = connack.sessionPresent ? 'resumed' : 'new';
    this.broker = `${client.options.hostname ?? client.options.host}:${client.options.port}`;
    const broker = this.broker;
    if (wasConnected) {
      this.reconnects++;
      this.mReconnects.inc(this.o.metricLabels);
      log.info(
        { url: safeUrl, broker, session, downMs: Date.now() - this.disconnectedAt },
        'mqtt-external: reconnected',
      );
      if (!connack.sessionPresent)
        log.warn(
          { url: safeUrl, clientId },
          'mqtt-external: the broker had no session for this gateway; QoS 1 messages sent while it was away are lost',
        );
    } else {
      log.info({ url: safeUrl, broker, clientId, session }, 'mqtt-external: connected');
    }
    void this.subscribeAndAnnounce(client, this.epoch);
  }

  private async subscribeAndAnnounce(client: MqttClient, epoch: number): Promise<void> {
    const { log } = this.o;
    try {
      const opts = this.subscribeOptions();
      const granted = await client.subscribeAsync(Object.fromEntries(this.filters.map((f) => [f, opts])));
      const refused = granted.filter((g) => g.qos >= 0x80);
      if (refused.length > 0) {
        const err = new StartError(
          `mqtt-external: the broker refused the subscription to ${refused.map((g) => g.topic).join(', ')} (reason ${refused[0]!.qos}); check its ACL for user ${this.o.username ?? '(from url)'}`,
        );
        log.error(err.message);
        this.lastError = err.message;
        if (this.startSettle) this.startSettle(err);
        return;
      }
      if (epoch !== this.epoch) return;
      this.subscribed = true;
      log.debug({ filters: this.filters }, 'mqtt-external: subscribed');
      this.startSettle?.();
      if (this.o.announce === false) return;
      await client.publishAsync(
        this.o.statusTopic,
        gatewayStatusPayload('online', Date.now()),
        GATEWAY_STATUS_PUBLISH,
      );
    } catch (e) {
      if (epoch === this.epoch && !this.stopping)
        log.warn(
          { error: this.o.redact(e) },
          'mqtt-external: subscribing or announcing failed; retried on the next connect',
        );
      else log.debug({ error: this.o.redact(e) }, 'mqtt-external: subscribe interrupted by disconnect');
    }
  }

  private onClose(): void {
    this.epoch++;
    this.subscribed = false;
    if (!this.connected) return;
    this.connected = false;
    this.mConnected.set(0, this.o.metricLabels);
    this.disconnectedAt = Date.now();
    if (!this.stopping)
      this.o.log.warn({ url: this.o.safeUrl }, 'mqtt-external: connection to the broker lost; reconnecting');
  }

  private onReconnectAttempt(client: MqttClient): void {
    const { baseReconnectMs, maxReconnectMs } = this.o;
    const next = Math.min(maxReconnectMs, (client.options.reconnectPeriod ?? baseReconnectMs) * 2);
    client.options.reconnectPeriod = Math.round(next * (0.9 + Math.random() * 0.2));
    this.o.log.debug({ url: this.o.safeUrl }, 'mqtt-external: reconnecting');
  }

  private onError(err: Error & { code?: string | number }): void {
    const { log, safeUrl } = this.o;
    const message = this.o.redact(err);
    this.lastError = message;
    const code = err.code;
    const fatal =
      (typeof code === 'number' && FATAL_CONNACK.has(code)) ||
      (typeof code === 'string' && TLS_TRUST_ERROR.test(code));
    if (fatal && this.startSettle) {
      this.startSettle(new StartError(`mqtt-external: cannot connect to ${safeUrl}: ${message}`));
      return;
    }
    if (message !== this.lastLoggedError) {
      this.lastLoggedError = message;
      const fields = { url: safeUrl, error: message };
      if (fatal) log.error(fields, 'mqtt-external: broker refused the connection; retrying');
      else log.warn(fields, 'mqtt-external: connection error');
    } else {
      log.debug({ url: safeUrl, error: message }, 'mqtt-external: connection error');
    }
  }
}
