/**
 * The embedded MQTT broker (aedes). Policy lives in hooks (brokerPolicy.ts): devices log in with their
 * own credentials and may publish only under their own topics; a QoS 1 publish is acknowledged only
 * after the ingest stage has committed it to the local store (authorizePublish runs before the PUBACK is
 * written). Telemetry nobody watches is not routed (brokerRouting.ts).
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { Aedes, type AuthenticateError, type Client, type PublishPacket, type Subscription } from 'aedes';
import { gatewayStatusTopic, parseDeviceTopic } from '../../../../shared/src/topics.ts';
import type { Config } from '../../config/schema.ts';
import type { DeviceRegistry } from '../../decode/registry.ts';
import type { Registry } from '../../metrics.ts';
import type { ComponentHealth, IngestSink, Input, Log } from '../../pipeline.ts';
import { BrokerPolicy, type Principal } from './brokerPolicy.ts';
import { TelemetryRouting } from './brokerRouting.ts';
import { GATEWAY_STATUS_PUBLISH, gatewayStatusPayload } from './gatewayStatus.ts';

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
  private readonly m;

  constructor(private readonly o: EmbeddedMqttOptions) {
    this.now = o.now ?? Date.now;
    this.policy = new BrokerPolicy(o.mqtt, o.registry);
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
        this.policy.authenticate(username, password).then(
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
    this.routing.install(broker);
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
      gatewayStatusPayload('online', this.now()),
      GATEWAY_STATUS_PUBLISH,
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
      gatewayStatusPayload('offline', this.now()),
      GATEWAY_STATUS_PUBLISH,
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
    };
    // The PUBACK goes out only once `done` is called, i.e. after the commit.
    if (this.sink.ingestWith) this.sink.ingestWith(msg, (err) => done(err));
    else
      this.sink.ingest(msg).then(
        () => done(null),
        (e: Error) => done(e),
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
