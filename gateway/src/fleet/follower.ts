/**
 * Following other gateways: a client of the shared broker of its own (clean session: the retained
 * messages give the latest of everything at every subscribe) that takes `gateway/+/state` and
 * `gateway/+/status` for the gateways in `fleet.follow` (`*`: all but this one). A followed gateway is
 * stale while its status says offline (its last will, published by the broker when its connection died)
 * or when its state is older than three of its publication intervals.
 */
import { readFileSync } from 'node:fs';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import type { FleetState, FollowedGateway } from '../../../shared/src/api/fleet.ts';
import { type Config, externalBrokerUrls } from '../config/schema.ts';
import { failoverServers } from '../ingest/mqtt/failover.ts';
import { redactor } from '../ingest/mqtt/redact.ts';
import type { ComponentHealth, Log } from '../pipeline.ts';
import { fleetStateSchema, STATE_FILTER, STATUS_FILTER } from './state.ts';

export type { FollowedGateway } from '../../../shared/src/api/fleet.ts';

export class Follower {
  private client: MqttClient | undefined;
  private readonly states = new Map<string, FleetState>();
  private readonly statuses = new Map<string, 'online' | 'offline'>();
  private readonly redact: (e: unknown) => string;
  private connected = false;

  constructor(
    private readonly config: Config,
    private readonly o: { log: Log; now: () => number },
  ) {
    this.redact = redactor(externalBrokerUrls(config.mqtt), config.mqtt.password);
  }

  private follows(id: string): boolean {
    if (id === this.config.gatewayId) return false;
    const f = this.config.fleet.follow;
    return f.includes('*') || f.includes(id);
  }

  start(): void {
    const { mqtt: m, gatewayId } = this.config;
    const urls = externalBrokerUrls(m);
    const tls = m.clientTls;
    const options: IClientOptions = {
      clientId: `gateway-${gatewayId}-fleet`,
      protocolVersion: m.protocolVersion,
      clean: true,
      // No table of all 65,536 packet ids as Buffers (6 MB of heap): see embedded.ts.
      writeCache: false,
      reconnectPeriod: 1000,
      connectTimeout: 10_000,
      ...failoverServers(urls),
      ...(m.username ? { username: m.username } : {}),
      ...(m.password ? { password: m.password } : {}),
      ...(tls?.caFile ? { ca: readFileSync(tls.caFile) } : {}),
      ...(tls?.certFile ? { cert: readFileSync(tls.certFile) } : {}),
      ...(tls?.keyFile ? { key: readFileSync(tls.keyFile) } : {}),
    };
    const client = mqtt.connect(urls[0]!, options);
    this.client = client;
    client.on('connect', () => {
      this.connected = true;
      client.subscribe({ [STATE_FILTER]: { qos: 1 }, [STATUS_FILTER]: { qos: 1 } }, (err) => {
        if (err) this.o.log.warn({ error: this.redact(err) }, 'fleet: subscribing to other gateways failed');
      });
    });
    client.on('close', () => {
      this.connected = false;
    });
    client.on('error', (e) => this.o.log.debug({ error: this.redact(e) }, 'fleet: broker connection error'));
    client.on('message', (topic, payload) => this.take(topic, payload));
  }

  async stop(): Promise<void> {
    await this.client?.endAsync(true);
    this.client = undefined;
  }

  private take(topic: string, payload: Buffer): void {
    const [, id, what] = topic.split('/');
    if (!id || !this.follows(id)) return;
    if (payload.length === 0) {
      if (what === 'state') this.states.delete(id);
      else this.statuses.delete(id);
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(payload.toString('utf8'));
    } catch (e) {
      this.o.log.warn({ topic, error: (e as Error).message }, 'fleet: a message that is not JSON; ignored');
      return;
    }
    if (what === 'status') {
      const st = typeof json === 'object' && json ? (json as { status?: unknown }).status : undefined;
      if (st === 'online' || st === 'offline') this.statuses.set(id, st);
      return;
    }
    const state = fleetStateSchema.safeParse(json);
    if (state.success && state.data.gatewayId === id) this.states.set(id, state.data);
    else this.o.log.warn({ topic }, 'fleet: a state that does not fit the schema; ignored');
  }

  /** The followed gateways, each with its sites, its status and whether it is stale. */
  view(): FollowedGateway[] {
    const now = this.o.now();
    const ids = new Set([...this.states.keys(), ...this.statuses.keys()]);
    return [...ids].sort().map((id) => {
      const s = this.states.get(id);
      const status = this.statuses.get(id) ?? 'unknown';
      const old = s ? now - Date.parse(s.publishedAt) > 3 * s.everySeconds * 1000 : true;
      return {
        gatewayId: id,
        ...(s?.url ? { url: s.url } : {}),
        everySeconds: s?.everySeconds ?? 0,
        publishedAt: s?.publishedAt ?? null,
        status,
        stale: status === 'offline' || old,
        sites: s?.sites ?? [],
      };
    });
  }

  health(): ComponentHealth {
    return { name: 'fleet-follow', ok: this.connected, following: this.states.size };
  }
}
