/**
 * The external-broker MQTT input: the gateway as a client of Mosquitto (or any MQTT 5 broker).
 *
 * Delivery guarantees
 * - Persistent session: a fixed client id, clean start off and a long session expiry, so the
 *   broker queues QoS 1 messages while the gateway is away and redelivers unacknowledged ones.
 * - Acknowledge after store: mqtt.js hands every received PUBLISH to `client.handleMessage`
 *   one at a time and sends the QoS 1 PUBACK only when its callback is called without an error
 *   (for QoS 1, `customHandleAcks` runs first and the 'message' event fires before
 *   `handleMessage`; so ingesting from 'message' would ack too early, and `customHandleAcks`
 *   never sees QoS 0 and only exists under MQTT 5). The callback is called after
 *   `sink.ingest()` has resolved, i.e. after the store commit. A crash, a lost connection or a
 *   failing store before that means no PUBACK, and the broker redelivers.
 * - Messages are ingested in arrival order, one at a time; PUBACKs go out in that order, as
 *   MQTT requires.
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
 */
import mqtt, { type IClientOptions, type IConnackPacket, type IPublishPacket, type MqttClient } from 'mqtt';
import { gatewayStatusTopic, parseDeviceTopic } from '../../../../shared/src/topics.ts';
import { type DeviceStatus, parseDeviceStatus } from '../../decode/status.ts';
import type { Counter, Gauge, Registry } from '../../metrics.ts';
import type { ComponentHealth, IngestSink, Input, Log, RawMessage } from '../../pipeline.ts';

export const TELEMETRY_FILTER = 'sites/+/devices/+/telemetry';
export const STATUS_FILTER = 'sites/+/devices/+/status';

export interface ExternalMqttOptions {
  /** mqtt://host:1883, mqtts://host:8883, ws://... Credentials in the URL are accepted but never shown. */
  url: string;
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
  onDeviceStatus?: (siteId: string, deviceId: string, status: DeviceStatus, at: number) => void;
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

/** Connection refusals that retrying cannot fix (MQTT 5 reason codes: client id, credentials, authorization, ban, auth method). */
const FATAL_CONNACK = new Set([0x85, 0x86, 0x87, 0x8a, 0x8c]);
const TLS_TRUST_ERROR = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ERR_TLS/;

type Kind = 'telemetry' | 'status' | 'other';

class StartError extends Error {}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Resolves to true when `p` settles first, false when `ms` passes first. */
async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((r) => {
    timer = setTimeout(() => r(false), ms);
  });
  try {
    return await Promise.race([p.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The URL with any user name and password removed, for logs and health. */
export function redactUrl(url: string): string {
  if (!URL.canParse(url)) return '(unparsable url)';
  const u = new URL(url);
  u.username = '';
  u.password = '';
  return u.toString();
}

/** The password in the URL, as written and percent-decoded, so both can be masked. */
function urlPasswords(url: string): string[] {
  if (!URL.canParse(url)) return [];
  const raw = new URL(url).password;
  if (!raw) return [];
  const bytes = raw.replace(/%([0-9a-fA-F]{2})/g, (_, h: string) =>
    String.fromCharCode(Number.parseInt(h, 16)),
  );
  return [raw, Buffer.from(bytes, 'latin1').toString('utf8')];
}

export class ExternalMqttInput implements Input {
  readonly name = 'mqtt-external';

  private readonly clientId: string;
  private readonly statusTopic: string;
  private readonly safeUrl: string;
  private readonly secrets: string[];
  private readonly baseReconnectMs: number;
  private readonly maxReconnectMs: number;

  private readonly mConnected: Gauge;
  private readonly mReconnects: Counter;
  private readonly mMessages: Counter;
  private readonly mIngestErrors: Counter;

  private client: MqttClient | undefined;
  private sink: IngestSink | undefined;
  /** Incremented whenever a network connection closes: PUBACKs only go out on the connection they belong to. */
  private epoch = 0;
  private connected = false;
  private subscribed = false;
  private everConnected = false;
  private reconnects = 0;
  private disconnectedAt = 0;
  private lastError: string | undefined;
  private lastLoggedError: string | undefined;
  private ingestFailing: string | undefined;
  private stopping = false;
  private stopPromise: Promise<void> | undefined;
  /** Messages whose storing has not finished (one per connection at most; more only around a reconnect). */
  private readonly pending = new Set<Promise<void>>();
  private startSettle: ((err?: Error) => void) | undefined;

  constructor(private readonly opts: ExternalMqttOptions) {
    this.clientId = opts.clientId || `gateway-${opts.gatewayId}`;
    this.statusTopic = gatewayStatusTopic(opts.gatewayId);
    this.safeUrl = redactUrl(opts.url);
    this.secrets = [opts.password, ...urlPasswords(opts.url)].filter((s): s is string => !!s && s.length > 0);
    this.baseReconnectMs = opts.reconnectPeriodMs ?? 1000;
    this.maxReconnectMs = Math.max(this.baseReconnectMs, opts.maxReconnectPeriodMs ?? 15_000);
    const m = opts.metrics;
    this.mConnected = m.gauge(
      'gateway_mqtt_connected',
      'Whether the gateway is connected to the MQTT broker (1) or not (0)',
    );
    this.mReconnects = m.counter(
      'gateway_mqtt_reconnects_total',
      'Connections to the MQTT broker re-established after a loss',
    );
    this.mMessages = m.counter('gateway_mqtt_messages_total', 'MQTT messages received, by kind');
    this.mIngestErrors = m.counter(
      'gateway_mqtt_ingest_errors_total',
      'MQTT messages whose storing failed (left unacknowledged and retried)',
    );
    this.mConnected.set(0);
  }

  start(sink: IngestSink): Promise<void> {
    if (this.client) return Promise.reject(new Error('mqtt-external: already started'));
    this.sink = sink;
    const o = this.opts;
    const options: IClientOptions = {
      clientId: this.clientId,
      protocolVersion: 5,
      clean: false,
      properties: { sessionExpiryInterval: o.sessionExpirySec ?? 30 * 24 * 3600 },
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
      client = mqtt.connect(o.url, options);
    } catch (e) {
      return Promise.reject(
        new Error(`mqtt-external: cannot use broker url ${this.safeUrl}: ${this.redact(e)}`),
      );
    }
    this.client = client;
    client.handleMessage = (packet, callback) => this.handleMessage(packet, callback);
    client.on('connect', (connack) => this.onConnect(client, connack));
    client.on('close', () => this.onClose());
    client.on('reconnect', () => this.onReconnectAttempt(client));
    client.on('error', (err) => this.onError(err));

    const started = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (!this.startSettle) return;
        this.startSettle = undefined;
        o.log.warn(
          { url: this.safeUrl, clientId: this.clientId, error: this.lastError },
          'mqtt-external: broker not reachable yet; starting anyway and retrying in the background',
        );
        resolve();
      }, o.startTimeoutMs ?? 5000);
      this.startSettle = (err) => {
        clearTimeout(timer);
        this.startSettle = undefined;
        if (err) reject(err);
        else resolve();
      };
    });
    o.log.info({ url: this.safeUrl, clientId: this.clientId }, 'mqtt-external: connecting');
    client.connect();
    return started.catch(async (err: unknown) => {
      await this.shutdownClient(client, true);
      this.client = undefined;
      this.mConnected.set(0);
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
    if (!client || !this.connected || this.stopping)
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
    const h: ComponentHealth = {
      name: 'mqtt',
      ok: this.connected && this.subscribed && this.ingestFailing === undefined,
      detail: this.safeUrl,
      transport: 'external',
      clientId: this.clientId,
      connected: this.connected,
      subscribed: this.subscribed,
      reconnects: this.reconnects,
    };
    if (!this.connected && this.lastError) h.lastError = this.lastError;
    if (this.ingestFailing) h.ingestError = this.ingestFailing;
    return h;
  }

  private async doStop(): Promise<void> {
    const client = this.client;
    this.stopping = true;
    this.startSettle?.();
    if (!client) return;
    const limit = this.opts.stopTimeoutMs ?? 5000;
    const deadline = Date.now() + limit;
    const left = () => Math.max(0, deadline - Date.now());
    if (!(await within(Promise.all(this.pending), left())))
      this.opts.log.warn(
        'mqtt-external: stopping while a message is still being stored; it stays unacknowledged',
      );
    if (this.connected) {
      const offline = client.publishAsync(
        this.statusTopic,
        JSON.stringify({ status: 'offline', ts: new Date().toISOString() }),
        { qos: 1, retain: true },
      );
      offline.catch((e: unknown) =>
        this.opts.log.warn({ error: this.redact(e) }, 'mqtt-external: could not publish offline status'),
      );
      if (!(await within(offline, left())))
        this.opts.log.warn('mqtt-external: offline status not acknowledged before the stop timeout');
    }
    await this.shutdownClient(client, false, left());
    this.connected = false;
    this.subscribed = false;
    this.mConnected.set(0);
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

  private handleMessage(packet: IPublishPacket, callback: (err?: Error) => void): void {
    const epoch = this.epoch;
    if (this.stopping || !this.sink) {
      callback(new Error('mqtt-external: stopping; message left unacknowledged for redelivery'));
      return;
    }
    const run = this.process(packet, epoch).then(
      (stored) => {
        if (stored && epoch === this.epoch) callback();
        else
          callback(new Error('mqtt-external: connection lost before acknowledgement; the broker redelivers'));
      },
      (err: unknown) => {
        this.opts.log.error({ error: this.redact(err) }, 'mqtt-external: message handling failed');
        callback(err instanceof Error ? err : new Error(String(err)));
      },
    );
    this.pending.add(run);
    void run.finally(() => this.pending.delete(run));
  }

  /** Stores one message, retrying while the store fails and the connection lasts. Resolves true once stored. */
  private async process(packet: IPublishPacket, epoch: number): Promise<boolean> {
    const sink = this.sink!;
    const topic = packet.topic;
    const payload = typeof packet.payload === 'string' ? Buffer.from(packet.payload) : packet.payload;
    const receivedAt = Date.now();
    const parsed = parseDeviceTopic(topic);
    const kind: Kind = parsed.kind;
    this.mMessages.inc({ kind });
    const msg: RawMessage = { transport: 'mqtt', topic, payload, receivedAt };
    let delay = 200;
    for (;;) {
      try {
        await sink.ingest(msg);
        if (this.ingestFailing !== undefined) {
          this.opts.log.info('mqtt-external: storing messages works again');
          this.ingestFailing = undefined;
        }
        break;
      } catch (e) {
        this.mIngestErrors.inc();
        const error = this.redact(e);
        if (this.ingestFailing === undefined)
          this.opts.log.error(
            { topic, error },
            'mqtt-external: storing a message failed; it stays unacknowledged and is retried',
          );
        this.ingestFailing = error;
        if (this.stopping || epoch !== this.epoch) {
          if (packet.qos === 0)
            this.opts.log.warn({ topic }, 'mqtt-external: a QoS 0 message could not be stored');
          return false;
        }
        await sleep(delay);
        delay = Math.min(delay * 2, 5000);
      }
    }
    if (parsed.kind === 'status' && this.opts.onDeviceStatus) {
      const st = parseDeviceStatus(payload, receivedAt);
      if (st.ok) {
        try {
          this.opts.onDeviceStatus(parsed.siteId, parsed.deviceId, st.status, st.at);
        } catch (e) {
          this.opts.log.error(
            { topic, error: this.redact(e) },
            'mqtt-external: device status handler failed',
          );
        }
      } else if (payload.length > 0) {
        this.opts.log.debug(
          { topic, reason: st.reason },
          'mqtt-external: unrecognised device status payload',
        );
      }
    }
    return true;
  }

  private onConnect(client: MqttClient, connack: IConnackPacket): void {
    if (client !== this.client || this.stopping) return;
    const wasConnected = this.everConnected;
    this.connected = true;
    this.everConnected = true;
    this.lastError = undefined;
    this.lastLoggedError = undefined;
    client.options.reconnectPeriod = this.baseReconnectMs;
    this.mConnected.set(1);
    const session = connack.sessionPresent ? 'resumed' : 'new';
    if (wasConnected) {
      this.reconnects++;
      this.mReconnects.inc();
      this.opts.log.info(
        { url: this.safeUrl, session, downMs: Date.now() - this.disconnectedAt },
        'mqtt-external: reconnected',
      );
      if (!connack.sessionPresent)
        this.opts.log.warn(
          { url: this.safeUrl, clientId: this.clientId },
          'mqtt-external: the broker had no session for this gateway; QoS 1 messages sent while it was away are lost',
        );
    } else {
      this.opts.log.info({ url: this.safeUrl, clientId: this.clientId, session }, 'mqtt-external: connected');
    }
    void this.subscribeAndAnnounce(client, this.epoch);
  }

  private async subscribeAndAnnounce(client: MqttClient, epoch: number): Promise<void> {
    try {
      const granted = await client.subscribeAsync({
        [TELEMETRY_FILTER]: { qos: 1, rh: 1 },
        [STATUS_FILTER]: { qos: 1, rh: 1 },
      });
      const refused = granted.filter((g) => g.qos >= 0x80);
      if (refused.length > 0) {
        const err = new StartError(
          `mqtt-external: the broker refused the subscription to ${refused.map((g) => g.topic).join(', ')} (reason ${refused[0]!.qos}); check its ACL for user ${this.opts.username ?? '(from url)'}`,
        );
        this.opts.log.error(err.message);
        this.lastError = err.message;
        if (this.startSettle) this.startSettle(err);
        return;
      }
      if (epoch !== this.epoch) return;
      this.subscribed = true;
      this.opts.log.debug({ filters: [TELEMETRY_FILTER, STATUS_FILTER] }, 'mqtt-external: subscribed');
      this.startSettle?.();
      await client.publishAsync(
        this.statusTopic,
        JSON.stringify({ status: 'online', ts: new Date().toISOString() }),
        { qos: 1, retain: true },
      );
    } catch (e) {
      if (epoch === this.epoch && !this.stopping)
        this.opts.log.warn(
          { error: this.redact(e) },
          'mqtt-external: subscribing or announcing failed; retried on the next connect',
        );
      else
        this.opts.log.debug({ error: this.redact(e) }, 'mqtt-external: subscribe interrupted by disconnect');
    }
  }

  private onClose(): void {
    this.epoch++;
    this.subscribed = false;
    if (!this.connected) return;
    this.connected = false;
    this.mConnected.set(0);
    this.disconnectedAt = Date.now();
    if (!this.stopping)
      this.opts.log.warn({ url: this.safeUrl }, 'mqtt-external: connection to the broker lost; reconnecting');
  }

  private onReconnectAttempt(client: MqttClient): void {
    const next = Math.min(this.maxReconnectMs, (client.options.reconnectPeriod ?? this.baseReconnectMs) * 2);
    client.options.reconnectPeriod = Math.round(next * (0.9 + Math.random() * 0.2));
    this.opts.log.debug({ url: this.safeUrl }, 'mqtt-external: reconnecting');
  }

  private onError(err: Error & { code?: string | number }): void {
    const message = this.redact(err);
    this.lastError = message;
    const code = err.code;
    const fatal =
      (typeof code === 'number' && FATAL_CONNACK.has(code)) ||
      (typeof code === 'string' && TLS_TRUST_ERROR.test(code));
    if (fatal && this.startSettle) {
      this.startSettle(new StartError(`mqtt-external: cannot connect to ${this.safeUrl}: ${message}`));
      return;
    }
    if (message !== this.lastLoggedError) {
      this.lastLoggedError = message;
      const fields = { url: this.safeUrl, error: message };
      if (fatal) this.opts.log.error(fields, 'mqtt-external: broker refused the connection; retrying');
      else this.opts.log.warn(fields, 'mqtt-external: connection error');
    } else {
      this.opts.log.debug({ url: this.safeUrl, error: message }, 'mqtt-external: connection error');
    }
  }

  private redact(e: unknown): string {
    let s = e instanceof Error ? e.message : String(e);
    for (const secret of this.secrets) s = s.split(secret).join('***');
    return s;
  }
}
