/**
 * The HTTP API as a stage: it builds the fastify app (one plugin per resource, each given the services
 * it uses; the dashboard, OpenAPI), listens, and closes. It owns the live feed (`GET /api/events`): what the rules, the ingest stage and
 * the inputs report is turned into the feed's event payloads here.
 */

import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { LiveEvent } from '../../../shared/src/api.ts';
import type { AlertEvent } from '../alerts/types.ts';
import type { Config } from '../config/schema.ts';
import type { ComponentHealth, Stage } from '../pipeline.ts';
import type { StoredReading } from '../store/readings.ts';
import type { ApiContext } from './context.ts';
import { EventHub } from './events.ts';
import { buildApi } from './server.ts';

export class ApiStage implements Stage {
  readonly name = 'api';
  /** The live feed's subscribers. */
  readonly events = new EventHub();
  private app: Awaited<ReturnType<typeof buildApi>> | undefined;

  constructor(
    private readonly config: Config,
    private readonly services: Omit<ApiContext, 'events'>,
  ) {}

  /** For the engine's listeners: an alert, storm or inspection change, committed. */
  readonly alertEvent = (e: AlertEvent): void => {
    if (this.events.size === 0) return;
    this.events.publish(
      e.type,
      e.type === 'alert'
        ? ({ action: e.action, alert: e.alert } satisfies LiveEvent<'alert'>)
        : e.type === 'storm'
          ? (e.storm satisfies LiveEvent<'storm'>)
          : (e.inspection satisfies LiveEvent<'inspection'>),
    );
  };

  /** For the ingest stage's listeners: a committed batch of readings, the newest reading of each device in it. */
  readonly readingsStored = (rs: StoredReading[]): void => {
    if (this.events.size === 0) return;
    const latest = new Map<string, StoredReading>();
    for (const r of rs) latest.set(`${r.siteId}/${r.deviceId}`, r);
    this.events.publish('readings', {
      count: rs.length,
      latest: [...latest.values()].map((r) => ({
        siteId: r.siteId,
        deviceId: r.deviceId,
        ts: new Date(r.ts).toISOString(),
        values: r.values,
        ...(r.alarms ? { alarms: r.alarms } : {}),
      })),
    } satisfies LiveEvent<'readings'>);
  };

  /** For the ingest stage's listeners: a device said it is online or offline. */
  readonly deviceStatus = (siteId: string, deviceId: string, status: string, at: number): void => {
    const data: LiveEvent<'device-status'> = { siteId, deviceId, status, at: new Date(at).toISOString() };
    this.events.publish('device-status', data);
  };

  async start(): Promise<void> {
    const { http } = this.config;
    this.app = await buildApi({
      services: { ...this.services, events: this.events },
      validateResponses: http.validateResponses,
      ...(http.tls
        ? { https: { cert: readFileSync(http.tls.certFile), key: readFileSync(http.tls.keyFile) } }
        : {}),
    });
    await this.app.listen({ port: http.port, host: http.host });
  }

  async stop(): Promise<void> {
    await this.app?.close();
  }

  health(): ComponentHealth[] {
    return [];
  }

  /**
   * The URL the API answers on, once started: the address it listens on, or the loopback one when it
   * listens on every interface (`0.0.0.0`, `::`).
   */
  url(): string {
    const port = (this.app?.server.address() as AddressInfo | null)?.port ?? 0;
    const { host, tls } = this.config.http;
    const name = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host;
    return `${tls ? 'https' : 'http'}://${name.includes(':') ? `[${name}]` : name}:${port}`;
  }

  port(): number {
    return (this.app?.server.address() as AddressInfo | null)?.port ?? 0;
  }
}
