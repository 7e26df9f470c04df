/**
 * A LoRaWAN network server as an input: the gateway as an MQTT client of the server's broker (ChirpStack
 * v4's MQTT integration, The Things Stack v3's MQTT server), subscribed to the uplink topics of the
 * configured applications. Each uplink goes to the ingest stage as it came (transport `lorawan`; the
 * decoder reads it: decode/native/lorawan.ts). At QoS 1 it is acknowledged to the broker only once the
 * stage has stored it (or kept or refused it for good): the external MQTT input's delivery, ack queue and
 * session (../mqtt/external*.ts) do that here too.
 *
 * Health per network server: connected, subscribed, uplinks, errors. Each configured device's link
 * counts its uplinks (`uplinks`) and records what was refused in words.
 */
import { readFileSync } from 'node:fs';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import type { Config } from '../../config/schema.ts';
import type { Registry } from '../../metrics.ts';
import type { ComponentHealth, IngestResult, IngestSink, Input, Log, RawMessage } from '../../pipeline.ts';
import type { DeviceLinks } from '../deviceLinks.ts';
import { Delivery } from '../mqtt/externalDelivery.ts';
import { BrokerSession } from '../mqtt/externalSession.ts';
import { redactor, redactUrl } from '../mqtt/redact.ts';
import { within } from '../wait.ts';
import { devEuiOf } from './uplinkEui.ts';

export type NetworkServer = 'chirpstack' | 'thingsStack';
export type NetworkServerSettings = NonNullable<Config['integrations'][NetworkServer]>;

const SERVER_NAMES: Record<NetworkServer, string> = {
  chirpstack: 'ChirpStack',
  thingsStack: 'The Things Stack',
};

/** The uplink topic filter of one application. */
export const uplinkFilter = (server: NetworkServer, application: string): string =>
  server === 'chirpstack' ? `application/${application}/device/+/event/up` : `v3/${application}/devices/+/up`;

export interface NetworkServerInputOptions {
  server: NetworkServer;
  settings: NetworkServerSettings;
  gatewayId: string;
  /** Where an uplink's device is found, for its link's counts. */
  registry: { byDevEui(devEui: string): { siteId: string; deviceId: string } | undefined };
  links: Pick<DeviceLinks, 'count' | 'error'>;
  metrics: Registry;
  log: Log;
  now?: () => number;
  /** How long start() waits for the first connection before going on (retrying behind). Default 5000. */
  startTimeoutMs?: number;
  /** First reconnect delay (doubling up to 15 s). Default 1000. */
  reconnectPeriodMs?: number;
}

export class NetworkServerInput implements Input {
  readonly name: string;
  private readonly session: BrokerSession;
  private readonly delivery: Delivery;
  private readonly safeUrl: string;
  private readonly redact: (e: unknown) => string;
  private readonly clientId: string;
  private client: MqttClient | undefined;
  private uplinks = 0;
  private errors = 0;
  private lastErrorText: string | undefined;

  constructor(private readonly o: NetworkServerInputOptions) {
    const s = o.settings;
    this.name = `lorawan-${o.server}`;
    this.clientId = s.clientId ?? `gateway-${o.gatewayId}-${o.server.toLowerCase()}`;
    this.safeUrl = redactUrl(s.url);
    this.redact = redactor([s.url], s.password);
    this.session = new BrokerSession({
      clientId: this.clientId,
      statusTopic: '',
      safeUrl: this.safeUrl,
      username: s.username,
      baseReconnectMs: o.reconnectPeriodMs ?? 1000,
      maxReconnectMs: Math.max(o.reconnectPeriodMs ?? 1000, 15_000),
      filters: s.applications.map((a) => uplinkFilter(o.server, a)),
      protocolVersion: 4,
      metrics: o.metrics,
      log: o.log,
      redact: this.redact,
      announce: false,
      metricLabels: { lorawan: o.server },
    });
    this.delivery = new Delivery({
      session: this.session,
      metrics: o.metrics,
      log: o.log,
      redact: this.redact,
      onDeviceStatus: undefined,
      kind: 'lorawan-uplink',
    });
  }

  start(sink: IngestSink): Promise<void> {
    if (this.client) return Promise.reject(new Error(`${this.name}: already started`));
    this.delivery.deliverTo({ ingest: (msg) => this.ingest(sink, msg) });
    const s = this.o.settings;
    const options: IClientOptions = {
      clientId: this.clientId,
      protocolVersion: 4,
      // QoS 1: the broker keeps the gateway's session and redelivers what was not acknowledged.
      clean: s.qos === 0,
      writeCache: false,
      keepalive: 30,
      connectTimeout: 10_000,
      reconnectPeriod: this.o.reconnectPeriodMs ?? 1000,
      reconnectOnConnackError: true,
      resubscribe: false,
      manualConnect: true,
      ...(s.username !== undefined ? { username: s.username } : {}),
      ...(s.password !== undefined ? { password: s.password } : {}),
      ...(s.tls?.caFile ? { ca: readFileSync(s.tls.caFile) } : {}),
      ...(s.tls?.certFile ? { cert: readFileSync(s.tls.certFile) } : {}),
      ...(s.tls?.keyFile ? { key: readFileSync(s.tls.keyFile) } : {}),
    };
    let client: MqttClient;
    try {
      client = mqtt.connect(s.url, options);
    } catch (e) {
      return Promise.reject(new Error(`${this.name}: cannot use ${this.safeUrl}: ${this.redact(e)}`));
    }
    this.client = client;
    client.handleMessage = (packet, callback) => this.delivery.handle(packet, callback);
    this.delivery.acks.use(client);
    this.session.attach(client);
    const started = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (!this.session.startSettle) return;
        this.session.startSettle = undefined;
        this.o.log.warn(
          { url: this.safeUrl, error: this.session.lastError },
          `${this.name}: the network server's broker is not reachable yet; retrying in the background`,
        );
        resolve();
      }, this.o.startTimeoutMs ?? 5000);
      this.session.startSettle = (err) => {
        clearTimeout(timer);
        this.session.startSettle = undefined;
        if (err) reject(err);
        else resolve();
      };
    });
    this.o.log.info({ url: this.safeUrl, clientId: this.clientId }, `${this.name}: connecting`);
    client.connect();
    return started.catch(async (err: unknown) => {
      await within(client.endAsync(true), 2000);
      this.client = undefined;
      this.session.detach();
      throw err;
    });
  }

  /** One uplink to the stage; its device's link counts it, and what was refused is recorded in words. */
  private async ingest(sink: IngestSink, msg: RawMessage): Promise<IngestResult> {
    const now = this.o.now ?? Date.now;
    const uplink: RawMessage = { ...msg, transport: 'lorawan', receivedAt: now() };
    const res = await sink.ingest(uplink);
    this.uplinks++;
    const eui = devEuiOf(msg.topic, msg.payload);
    const device = eui === undefined ? undefined : this.o.registry.byDevEui(eui);
    if (device) this.o.links.count(device.siteId, device.deviceId, 'uplinks');
    if (res.status === 'rejected') {
      this.errors++;
      this.lastErrorText = res.detail;
      if (device) {
        this.o.links.count(device.siteId, device.deviceId, 'errors');
        this.o.links.error(device.siteId, device.deviceId, uplink.receivedAt, res.detail);
      }
    }
    return res;
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.session.stopping = true;
    this.session.startSettle?.();
    if (!client) return;
    if (!(await this.delivery.drained(5000)))
      this.o.log.warn(`${this.name}: stopping while an uplink is being stored; it stays unacknowledged`);
    if (!(await within(client.endAsync(false), 3000))) await within(client.endAsync(true), 1000);
    this.session.detach();
    this.client = undefined;
  }

  health(): ComponentHealth {
    const { connected, subscribed, reconnects, lastError } = this.session;
    const failing = this.delivery.ingestFailing;
    return {
      name: this.name,
      ok: connected && subscribed && failing === undefined,
      detail: `${SERVER_NAMES[this.o.server]} at ${this.safeUrl}`,
      connected,
      subscribed,
      reconnects,
      uplinks: this.uplinks,
      errors: this.errors,
      ...(this.lastErrorText ? { lastRefused: this.lastErrorText } : {}),
      ...(!connected && lastError ? { lastError } : {}),
      ...(failing ? { ingestError: failing } : {}),
    };
  }
}
