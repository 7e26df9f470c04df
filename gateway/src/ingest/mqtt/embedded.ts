/**
 * The embedded MQTT broker (aedes). Policy lives in hooks: devices log in with their own credentials
 * and may publish only under their own topics; a QoS 1 publish is acknowledged only after the ingest
 * stage has committed it to the local store (authorizePublish runs before the PUBACK is written).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { Aedes, type AuthenticateError, type Client, type PublishPacket, type Subscription } from 'aedes';
import { verifyPasswordAsync } from '../../../../shared/src/password.ts';
import { gatewayStatusTopic, parseDeviceTopic } from '../../../../shared/src/topics.ts';
import type { Config } from '../../config/schema.ts';
import type { DeviceInfo, DeviceRegistry } from '../../decode/registry.ts';
import type { Registry } from '../../metrics.ts';
import type { ComponentHealth, IngestSink, Input, Log } from '../../pipeline.ts';

type Principal =
  | { kind: 'device'; device: DeviceInfo }
  | { kind: 'user'; username: string; subscribe: string[] }
  | { kind: 'anonymous' };

export interface EmbeddedMqttOptions {
  mqtt: Config['mqtt'];
  gatewayId: string;
  registry: DeviceRegistry;
  metrics: Registry;
  log: Log;
  now?: () => number;
  /** Records a refused publish (wrong topic) as a rejection. */
  onRefused?: (topic: string, payload: Buffer, clientId: string, detail: string) => void;
}

/** Does an MQTT topic filter (with + and #) match a topic? */
export function topicMatches(filter: string, topic: string): boolean {
  const f = filter.split('/');
  const t = topic.split('/');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '#') return true;
    if (i >= t.length) return false;
    if (f[i] !== '+' && f[i] !== t[i]) return false;
  }
  return f.length === t.length;
}

const TELEMETRY_FILTER = 'sites/+/devices/+/telemetry';

/** Can some topic match both filters? */
export function filtersIntersect(a: string, b: string): boolean {
  const x = a.split('/');
  const y = b.split('/');
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if (x[i] === '#' || y[i] === '#') return true;
    if (x[i] === undefined || y[i] === undefined) return false;
    if (x[i] !== '+' && y[i] !== '+' && x[i] !== y[i]) return false;
  }
  return true;
}

/** Is `filter` no wider than `allowed` (every topic it matches is matched by `allowed`)? */
function filterWithin(allowed: string, filter: string): boolean {
  const a = allowed.split('/');
  const f = filter.split('/');
  for (let i = 0; i < a.length; i++) {
    if (a[i] === '#') return true;
    if (i >= f.length) return false;
    if (a[i] === '+') {
      if (f[i] === '#') return false;
      continue;
    }
    if (a[i] !== f[i]) return false;
  }
  return a.length === f.length;
}

/** At most `n` tasks at once; the rest wait in order. */
class Semaphore {
  private active = 0;
  private waiting: Array<() => void> = [];
  constructor(private readonly n: number) {}
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.n) await new Promise<void>((r) => this.waiting.push(r));
    this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}

function authError(message: string, code: 4 | 5): AuthenticateError {
  return Object.assign(new Error(message), { returnCode: code }) as AuthenticateError;
}

export class EmbeddedMqttInput implements Input {
  readonly name = 'mqtt';
  private broker: Aedes | undefined;
  private servers: Server[] = [];
  private principals = new WeakMap<Client, Principal>();
  /** sha256 of passwords already verified, so reconnect storms do not cost a scrypt each. */
  private verified = new Map<string, string>();
  /** Whether any client has subscribed to a filter that can match device telemetry. */
  private telemetryWatched = false;
  /** scrypt needs 16 MB a check: a reconnect storm runs two at a time, not one per thread-pool thread. */
  private scryptSlots = new Semaphore(2);
  private sink: IngestSink | undefined;
  private readonly now: () => number;
  private listening = false;
  private readonly m;

  constructor(private readonly o: EmbeddedMqttOptions) {
    this.now = o.now ?? Date.now;
    this.m = {
      clients: o.metrics.gauge('gateway_mqtt_clients', 'Clients connected to the embedded broker'),
      authFailures: o.metrics.counter('gateway_mqtt_auth_failures_total', 'Refused MQTT logins'),
      refused: o.metrics.counter('gateway_mqtt_refused_publish_total', 'Publishes refused by topic policy'),
    };
    this.m.clients.collect((set) => set(this.broker?.connectedClients ?? 0));
  }

  /** The port the plain listener is bound to (useful with port 0). */
  port(): number {
    const a = this.servers[0]?.address();
    return typeof a === 'object' && a ? a.port : 0;
  }

  async start(sink: IngestSink): Promise<void> {
    this.sink = sink;
    const broker = await Aedes.createBroker({
      id: `gateway-${this.o.gatewayId}`,
      authenticate: (client, username, password, done) => {
        this.authenticate(client, username, password).then(
          (p) => {
            this.principals.set(client, p);
            done(null, true);
          },
          (e: AuthenticateError) => {
            this.m.authFailures.inc();
            this.o.log.warn({ clientId: client?.id, username, reason: e.message }, 'MQTT login refused');
            done(e, false);
          },
        );
      },
      authorizePublish: (client, packet, done) => this.authorizePublish(client, packet, done),
      authorizeSubscribe: (client, sub, done) =>
        done(null, this.authorizeSubscribe(client, sub) ? sub : null),
    });
    this.broker = broker;
    this.skipUnwatchedTelemetry(broker);
    broker.on('clientError', (client, err) =>
      this.o.log.debug({ clientId: client?.id, err: err.message }, 'MQTT client error'),
    );
    const { mqtt } = this.o;
    const plain = createServer(broker.handle);
    await listen(plain, mqtt.port, mqtt.host);
    this.servers.push(plain);
    if (mqtt.tls) {
      const tls = createTlsServer(
        {
          cert: readFileSync(mqtt.tls.certFile),
          key: readFileSync(mqtt.tls.keyFile),
          ...(mqtt.tls.caFile ? { ca: readFileSync(mqtt.tls.caFile) } : {}),
        },
        broker.handle,
      );
      await listen(tls, mqtt.tls.port, mqtt.host);
      this.servers.push(tls);
    }
    this.listening = true;
    await this.publish(
      gatewayStatusTopic(this.o.gatewayId),
      JSON.stringify({ status: 'online', ts: new Date(this.now()).toISOString() }),
      { retain: true, qos: 1 },
    );
    this.o.log.info(
      { port: this.port(), tls: mqtt.tls ? mqtt.tls.port : undefined },
      'embedded MQTT broker listening',
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

  async stop(): Promise<void> {
    const broker = this.broker;
    if (!broker) return;
    await this.publish(
      gatewayStatusTopic(this.o.gatewayId),
      JSON.stringify({ status: 'offline', ts: new Date(this.now()).toISOString() }),
      { retain: true, qos: 1 },
    ).catch((e: Error) => this.o.log.warn({ err: e.message }, 'could not publish gateway offline status'));
    this.listening = false;
    await Promise.all(this.servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
    await new Promise<void>((r) => broker.close(() => r()));
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

  private async authenticate(client: Client, username?: string, password?: Buffer): Promise<Principal> {
    if (username === undefined || username === '') {
      if (this.o.mqtt.allowAnonymous) return { kind: 'anonymous' };
      throw authError('anonymous access is off', 5);
    }
    const device = this.o.registry.byUsername(username);
    const user = this.o.mqtt.users.find((u) => u.username === username);
    const hash = device?.device.passwordHash ?? user?.passwordHash;
    if (!hash) {
      if (device && this.o.mqtt.allowAnonymous) return { kind: 'device', device };
      throw authError(`unknown user or no credentials configured: ${username}`, 4);
    }
    const pw = password ?? Buffer.alloc(0);
    const digest = createHash('sha256').update(pw).digest('hex');
    if (this.verified.get(username) !== digest) {
      if (!(await this.scryptSlots.run(() => verifyPasswordAsync(pw, hash))))
        throw authError(`bad password for ${username}`, 4);
      this.verified.set(username, digest);
    }
    void client;
    return device ? { kind: 'device', device } : { kind: 'user', username, subscribe: user!.subscribe };
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
    const refusal = this.refusal(this.principals.get(client), packet.topic);
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
    };
    // The PUBACK goes out only once `done` is called, i.e. after the commit.
    if (this.sink.ingestWith) this.sink.ingestWith(msg, (err) => done(err));
    else
      this.sink.ingest(msg).then(
        () => done(null),
        (e: Error) => done(e),
      );
  }

  /** Why a principal may not publish to a topic, or undefined when it may. */
  private refusal(p: Principal | undefined, topic: string): string | undefined {
    const t = parseDeviceTopic(topic);
    if (p?.kind === 'device') {
      const { siteId, deviceId, username } = p.device;
      if (t.kind === 'other' || t.siteId !== siteId || t.deviceId !== deviceId)
        return `${username} may publish only under sites/${siteId}/devices/${deviceId}/`;
      return undefined;
    }
    if (p?.kind === 'user') return `user ${p.username} may not publish`;
    if (topic.startsWith('gateway/') || topic.startsWith('alerts/'))
      return 'only the gateway publishes gateway/ and alerts/ topics';
    return undefined;
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
    const ok = this.mayGrant(client, sub);
    if (ok && filtersIntersect(sub.topic, TELEMETRY_FILTER)) this.telemetryWatched = true;
    return ok;
  }

  /**
   * The gateway consumes device telemetry itself. Until some client subscribes to a filter that can match
   * a telemetry topic, the broker need not route each telemetry publish to subscribers, offline sessions
   * and retained storage: that routing is most of a broker's cost per message. From the first such
   * subscription on, every publish is routed as usual.
   */
  private skipUnwatchedTelemetry(broker: Aedes): void {
    type PublishFn = (packet: PublishPacket, client: Client | null, done?: (err?: Error) => void) => void;
    const b = broker as unknown as { publish: PublishFn };
    const route = b.publish.bind(broker);
    b.publish = (packet, client, done) => {
      if (
        !this.telemetryWatched &&
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

  private mayGrant(client: Client, sub: Subscription): boolean {
    const p = this.principals.get(client);
    if (!p || p.kind === 'anonymous') return this.o.mqtt.allowAnonymous;
    if (p.kind === 'device')
      return filterWithin(`sites/${p.device.siteId}/devices/${p.device.deviceId}/#`, sub.topic);
    return p.subscribe.some((allowed) => filterWithin(allowed, sub.topic));
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
