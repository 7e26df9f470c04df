/**
 * The embedded MQTT broker (aedes). Policy lives in hooks (brokerPolicy.ts): devices log in with their
 * own credentials and may publish only under their own topics; a QoS 1 publish is acknowledged only
 * after the ingest stage has committed it to the local store (authorizePublish runs before the PUBACK is
 * written), and what the stage refuses gets no PUBACK: the broker closes the connection. Because aedes
 * reads a client's next socket chunk only once every packet of the current one has been handled, a
 * publish held back for its device's rate holds that client back too: that is the rate limit.
 *
 * A publish over ingest.maxPayloadBytes but within mqtt.maxPacketBytes is read, refused as oversize
 * (recorded and counted with the device its topic names) and then acknowledged: a 3.1.1 client gets a
 * plain PUBACK, an MQTT 5 client (mqtt5.ts) a PUBACK with reason code 0x83 and the Reason String "Packet
 * too large: …" (0x95 is not a PUBACK code in MQTT 5); it is not routed to subscribers. Acknowledging it is no "saved": the reason code says so to a v5 client, and
 * sending it again could never help (Mosquitto's message_size_limit does the same).
 *
 * One client cannot exhaust the broker: packets are bounded by size before they are buffered
 * (packetLimit.ts; smaller before login), a connection must log in within `loginTimeoutSeconds`, client ids belong to logins and
 * each login holds a bounded number of connections and sessions (sessions.ts), a session's offline queue
 * is bounded (offlineQueue.ts), and failed logins slow the next ones down. Telemetry nobody watches is
 * not routed (brokerRouting.ts).
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { Aedes, type AuthenticateError, type Client, type PublishPacket, type Subscription } from 'aedes';
import { writeToStream } from 'mqtt-packet';
import { gatewayStatusTopic, parseDeviceTopic } from '../../../../shared/src/topics.ts';
import type { DeviceRegistry } from '../../config/registry.ts';
import type { Config } from '../../config/schema.ts';
import type { Registry } from '../../metrics.ts';
import type { ComponentHealth, IngestResult, IngestSink, Input, Log } from '../../pipeline.ts';
import { BrokerPolicy, type Principal } from './brokerPolicy.ts';
import { TelemetryRouting } from './brokerRouting.ts';
import type { CredentialCache } from './credentialMacs.ts';
import { GATEWAY_STATUS_PUBLISH, gatewayStatusPayload } from './gatewayStatus.ts';
import { acceptV5, tooLarge } from './mqtt5.ts';
import { boundOfflineQueues } from './offlineQueue.ts';
import { limitPacketSize } from './packetLimit.ts';
import { Sessions } from './sessions.ts';

export interface EmbeddedMqttOptions {
  mqtt: Config['mqtt'];
  gatewayId: string;
  registry: DeviceRegistry;
  metrics: Registry;
  log: Log;
  now?: () => number;
  /** The largest packet read once logged in (mqtt.maxPacketBytes, default 1 MiB). */
  maxPacketBytes: number;
  /** The largest packet read before login (ingest.maxPayloadBytes + 4096). */
  maxPacketBytesBeforeLogin: number;
  /** Device secrets verified before (credentialMacs.ts): a restart's reconnects cost no scrypt. */
  credentials?: CredentialCache;
  /** Records a refused publish (wrong topic) as a rejection. */
  onRefused?: (topic: string, payload: Buffer, clientId: string, detail: string) => void;
}

export class EmbeddedMqttInput implements Input {
  readonly name = 'mqtt';
  private broker: Aedes | undefined;
  private servers: Server[] = [];
  private principals = new WeakMap<Client, Principal>();
  private readonly policy: BrokerPolicy;
  private readonly routing = new TelemetryRouting();
  private sink: IngestSink | undefined;
  private readonly now: () => number;
  private listening = false;
  private readonly sessions: Sessions;
  /** Publishes handed to the stage and not told their outcome yet (waited for at stop). */
  private inFlight = 0;
  private readonly m;

  constructor(private readonly o: EmbeddedMqttOptions) {
    this.now = o.now ?? Date.now;
    this.policy = new BrokerPolicy(o.mqtt, o.registry, o.credentials);
    this.sessions = new Sessions(o.registry, {
      maxConnections: o.mqtt.maxConnectionsPerLogin,
      maxSessions: o.mqtt.maxSessionsPerLogin,
    });
    const counter = (name: string, help: string) => o.metrics.counter(name, help);
    this.m = {
      clients: o.metrics.gauge('gateway_mqtt_clients', 'Clients connected to the embedded broker'),
      authFailures: counter('gateway_mqtt_auth_failures_total', 'Refused MQTT logins'),
      throttled: counter(
        'gateway_login_throttled_total',
        'Logins refused unchecked after failed ones, by transport',
      ),
      checks: counter(
        'gateway_password_checks_total',
        'Passwords checked against their hash (scrypt), by transport',
      ),
      refused: counter('gateway_mqtt_refused_publish_total', 'Publishes refused by topic policy'),
      oversize: counter(
        'gateway_mqtt_oversize_packets_total',
        'Connections closed for a packet over mqtt.maxPacketBytes (or the smaller limit before login)',
      ),
      offlineDropped: counter(
        'gateway_mqtt_offline_dropped_total',
        'Messages not queued: a session queue was full',
      ),
    };
    this.m.clients.collect((set) => set(this.broker?.connectedClients ?? 0));
    this.policy.onThrottled = () => this.m.throttled.inc({ transport: 'mqtt' });
    this.policy.onChecked = () => this.m.checks.inc({ transport: 'mqtt' });
  }

  /** The port the plain listener is bound to (useful with port 0). */
  port(): number {
    const a = this.servers[0]?.address();
    return typeof a === 'object' && a ? a.port : 0;
  }

  async start(sink: IngestSink): Promise<void> {
    this.sink = sink;
    const { mqtt } = this.o;
    // The packet writer would otherwise build a table of all 65,536 packet ids as Buffers on first use
    // (6 MB of heap, 65,536 objects every full GC marks); a 2-byte Buffer per written id costs less.
    writeToStream.cacheNumbers = false;
    const broker = await Aedes.createBroker({
      id: `gateway-${this.o.gatewayId}`,
      connectTimeout: mqtt.loginTimeoutSeconds * 1000,
      preConnect: (client, packet, done) => {
        acceptV5(client, packet, this.o.maxPacketBytes);
        done(null, true);
      },
      authenticate: (client, username, password, done) => this.authenticate(client, username, password, done),
      authorizePublish: (client, packet, done) => this.authorizePublish(client, packet, done),
      authorizeSubscribe: (client, sub, done) =>
        done(null, this.authorizeSubscribe(client, sub) ? sub : null),
      // Live deliveries and those queued for a resumed session alike: only what the login may read.
      authorizeForward: (client, packet) =>
        this.policy.mayReceive(this.principals.get(client), packet.topic) ? packet : null,
    });
    this.broker = broker;
    this.routing.install(broker);
    boundOfflineQueues(broker, mqtt.maxQueuedPerSession, this.m.offlineDropped);
    broker.on('clientError', (client, err) =>
      this.o.log.debug({ clientId: client?.id, err: err.message }, 'MQTT client error'),
    );
    const handle = (conn: Socket) => {
      const client = broker.handle(conn);
      const limits = { loggedIn: this.o.maxPacketBytes, beforeLogin: this.o.maxPacketBytesBeforeLogin };
      limitPacketSize(
        client,
        limits,
        () => this.principals.has(client),
        (bytes, max) => {
          this.m.oversize.inc();
          this.o.log.warn(
            { clientId: client.id ?? undefined, address: conn.remoteAddress, bytes, max },
            max === limits.loggedIn
              ? 'MQTT packet over mqtt.maxPacketBytes: connection closed'
              : 'MQTT packet over the limit before login: connection closed',
          );
        },
      );
    };
    if (mqtt.plaintext) {
      const plain = createServer(handle);
      await listen(plain, mqtt.port, mqtt.host);
      this.servers.push(plain);
    }
    if (mqtt.tls) {
      const tls = createTlsServer(
        {
          cert: readFileSync(mqtt.tls.certFile),
          key: readFileSync(mqtt.tls.keyFile),
          ...(mqtt.tls.caFile ? { ca: readFileSync(mqtt.tls.caFile) } : {}),
        },
        handle,
      );
      await listen(tls, mqtt.tls.port, mqtt.host);
      this.servers.push(tls);
    }
    this.listening = true;
    await this.publish(
      gatewayStatusTopic(this.o.gatewayId),
      gatewayStatusPayload('online', this.now()),
      GATEWAY_STATUS_PUBLISH,
    );
    this.o.log.info(
      { port: mqtt.plaintext ? this.port() : undefined, tls: mqtt.tls ? mqtt.tls.port : undefined },
      'embedded MQTT broker listening',
    );
  }

  /** Credentials, then the client id and the login's limits (sessions.ts). */
  private authenticate(
    client: Client,
    username: string | undefined,
    password: Buffer | undefined,
    done: (err: AuthenticateError | null, ok: boolean | null) => void,
  ): void {
    const address = (client.conn as Socket | undefined)?.remoteAddress ?? '';
    this.policy.authenticate(username, password, address).then(
      (p) => {
        const refusal = this.sessions.admit(client, p);
        if (refusal) {
          this.m.authFailures.inc();
          this.o.log.warn(
            { clientId: client.id, username, reason: refusal.message },
            'MQTT connection refused',
          );
          done(
            Object.assign(new Error(refusal.message), { returnCode: refusal.code }) as AuthenticateError,
            false,
          );
          return;
        }
        this.principals.set(client, p);
        done(null, true);
      },
      (e: AuthenticateError & { throttled?: boolean; shutForMs?: number }) => {
        this.m.authFailures.inc();
        // A refusal of a shut login is counted, not logged: a guessing loop gives no line per guess.
        if (!e.throttled)
          this.o.log.warn(
            {
              clientId: client?.id,
              username,
              address,
              reason: e.message,
              ...(e.shutForMs ? { nextLoginInMs: e.shutForMs } : {}),
            },
            'MQTT login refused',
          );
        done(e, false);
      },
    );
  }

  /** Publishes from the gateway itself (gateway status, alert notifications). */
  publish(topic: string, payload: string, opts: { retain?: boolean; qos?: 0 | 1 } = {}): Promise<void> {
    const broker = this.broker;
    if (!broker) return Promise.reject(new Error('embedded broker is not running'));
    return new Promise((resolve, reject) =>
      broker.publish(
        {
          cmd: 'publish',
          topic,
          payload: Buffer.from(payload),
          qos: opts.qos ?? 1,
          retain: opts.retain ?? false,
          dup: false,
        },
        (err) => (err ? reject(err) : resolve()),
      ),
    );
  }

  /**
   * A device was added, changed or retired, or its secret changed: its client ids are taken again, and
   * with `endSession` verified passwords are forgotten and its live connections closed, so the old secret
   * stops working at once.
   */
  deviceChanged(siteId: string, deviceId: string, endSession: boolean): void {
    this.sessions.refresh();
    if (!endSession) return;
    this.policy.forgetVerified();
    // aedes keeps its connected clients by id in `clients` (not in its type declarations).
    const clients = (this.broker as unknown as { clients?: Record<string, Client> } | undefined)?.clients;
    for (const client of Object.values(clients ?? {})) {
      const p = this.principals.get(client);
      if (p?.kind !== 'device' || p.device.siteId !== siteId || p.device.deviceId !== deviceId) continue;
      this.o.log.info({ clientId: client.id, siteId, deviceId }, 'device session ended: its secret changed');
      client.close();
    }
  }

  /**
   * Stops taking connections, lets the publishes being stored finish (at most `drainMs`), announces the
   * gateway offline, then closes every client: an idle client does not hold the stop up.
   */
  async stop(drainMs = 3000): Promise<void> {
    const broker = this.broker;
    if (!broker) return;
    this.listening = false;
    const closed = Promise.all(this.servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
    for (const end = Date.now() + drainMs; this.inFlight > 0 && Date.now() < end; )
      await new Promise((r) => setTimeout(r, 10));
    await this.publish(
      gatewayStatusTopic(this.o.gatewayId),
      gatewayStatusPayload('offline', this.now()),
      GATEWAY_STATUS_PUBLISH,
    ).catch((e: Error) => this.o.log.warn({ err: e.message }, 'could not publish gateway offline status'));
    await new Promise<void>((r) => broker.close(() => r()));
    await closed;
    this.servers = [];
    this.broker = undefined;
  }

  health(): ComponentHealth {
    return {
      name: 'mqtt',
      ok: this.listening,
      detail: this.listening ? `embedded broker on port ${this.port()}` : 'not listening',
      clients: this.broker?.connectedClients ?? 0,
    };
  }

  private authorizePublish(
    client: Client | null,
    packet: PublishPacket,
    done: (err?: Error | null) => void,
  ): void {
    if (client === null) {
      done(null);
      return;
    }
    const refusal = this.policy.refusal(this.principals.get(client), packet.topic);
    if (refusal) {
      this.refuse(client, packet, refusal, done);
      return;
    }
    if (parseDeviceTopic(packet.topic).kind === 'other' || !this.sink) {
      done(null);
      return;
    }
    const msg = {
      transport: 'mqtt' as const,
      topic: packet.topic,
      payload: packet.payload as Buffer,
      receivedAt: this.now(),
      clientId: client.id,
      qos: packet.qos,
      refusable: packet.qos > 0,
    };
    // The PUBACK goes out only once `done` is called, i.e. after the commit; an error closes the connection.
    this.inFlight++;
    const settle = (err: Error | null, res?: IngestResult) => {
      this.inFlight--;
      if (res?.status === 'rejected' && res.reason === 'oversize') {
        // Recorded and counted: acknowledged as too large (v5), not routed, its payload let go.
        tooLarge(client, packet.messageId, res.detail);
        this.routing.drop(packet);
      }
      done(err);
    };
    if (this.sink.ingestWith) this.sink.ingestWith(msg, settle);
    else
      this.sink.ingest(msg).then(
        (res) => settle(null, res),
        (e: Error) => settle(e),
      );
  }

  private refuse(
    client: Client,
    packet: PublishPacket,
    detail: string,
    done: (err?: Error | null) => void,
  ): void {
    const topic = packet.topic;
    this.m.refused.inc();
    this.o.onRefused?.(topic, packet.payload as Buffer, client.id, detail);
    this.o.log.warn({ clientId: client.id, topic }, `publish refused: ${detail}`);
    done(new Error(`not authorized: ${detail}`));
  }

  private authorizeSubscribe(client: Client, sub: Subscription): boolean {
    const ok = this.policy.mayGrant(this.principals.get(client), sub.topic);
    if (ok) this.routing.granted(sub.topic);
    return ok;
  }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
