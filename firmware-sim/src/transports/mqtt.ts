import mqtt, { type MqttClient } from 'mqtt';
import { deviceStatusTopic, telemetryTopic } from '../../../shared/src/topics.ts';
import type { DeviceOutput, SimDevice } from '../devices/base.ts';
import type { SimDeviceLogin, Transport, TransportStats } from './types.ts';

export interface MqttTransportOptions {
  url: string;
  qos?: 0 | 1;
  /** First reconnect delay; doubles on each failed attempt up to `maxReconnectMs`. */
  reconnectMs?: number;
  maxReconnectMs?: number;
  /** Publish a retained `offline` when the run ends (a clean shutdown sends no will). */
  announceOfflineOnClose?: boolean;
  log?: (msg: string) => void;
}

/** One device's MQTT session: its own login, retained `online` status and `offline` last will. */
export class MqttDeviceLink {
  client: MqttClient | undefined;
  private inflight = 0;
  private idleWaiters: (() => void)[] = [];
  private readonly telemetry: string;
  private readonly status: string;
  private readonly base: number;

  constructor(
    readonly siteId: string,
    readonly deviceId: string,
    private readonly login: { username: string; password: string },
    private readonly o: MqttTransportOptions,
    private readonly stats: TransportStats,
  ) {
    this.telemetry = telemetryTopic(siteId, deviceId);
    this.status = deviceStatusTopic(siteId, deviceId);
    this.base = o.reconnectMs ?? 500;
  }

  /** Connects (resolves on the first CONNACK, or rejects on a refused login or after `timeoutMs`). */
  connect(timeoutMs = 10_000): Promise<void> {
    const client = mqtt.connect(this.o.url, {
      clientId: `${this.siteId}/${this.deviceId}`,
      username: this.login.username,
      password: this.login.password,
      clean: true,
      reconnectPeriod: this.base,
      connectTimeout: timeoutMs,
      will: { topic: this.status, payload: Buffer.from('offline'), qos: 1, retain: true },
    });
    this.client = client;
    client.on('connect', () => {
      client.options.reconnectPeriod = this.base;
      client.publish(this.status, 'online', { qos: 1, retain: true });
    });
    client.on('close', () => {
      // Exponential backoff: mqtt.js reads reconnectPeriod each time it schedules a reconnect.
      const max = this.o.maxReconnectMs ?? 30_000;
      client.options.reconnectPeriod = Math.min(max, (client.options.reconnectPeriod ?? this.base) * 2);
    });
    client.on('error', (err) => {
      this.stats.errors++;
      this.o.log?.(`${this.siteId}/${this.deviceId}: ${err.message}`);
    });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        cleanup();
        reject(
          new Error(`${this.siteId}/${this.deviceId}: no CONNACK from ${this.o.url} within ${timeoutMs} ms`),
        );
      }, timeoutMs);
      const onConnect = () => {
        cleanup();
        resolve();
      };
      const onError = (err: Error) => {
        if ((err as { code?: number }).code === undefined) return;
        cleanup();
        reject(new Error(`${this.siteId}/${this.deviceId}: connection refused: ${err.message}`));
      };
      const cleanup = () => {
        clearTimeout(timer);
        client.off('connect', onConnect);
        client.off('error', onError);
      };
      client.on('connect', onConnect);
      client.on('error', onError);
    });
  }

  publish(payload: unknown): void {
    const client = this.client;
    if (!client) throw new Error(`${this.siteId}/${this.deviceId}: publish before connect`);
    this.inflight++;
    this.stats.sent++;
    client.publish(this.telemetry, JSON.stringify(payload), { qos: this.o.qos ?? 1 }, (err) => {
      this.inflight--;
      if (err) {
        this.stats.errors++;
        this.o.log?.(`${this.siteId}/${this.deviceId}: publish failed: ${err.message}`);
      } else this.stats.acked++;
      if (this.inflight === 0) for (const w of this.idleWaiters.splice(0)) w();
    });
  }

  /** Resolves when every publish so far is acknowledged, or after `timeoutMs`. */
  idle(timeoutMs: number): Promise<void> {
    if (this.inflight === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.idleWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** The link dies without a DISCONNECT (power, radio): the broker publishes the last will. */
  async dropAbruptly(): Promise<void> {
    await this.idle(2000);
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    await new Promise<void>((resolve) => client.end(true, {}, () => resolve()));
  }

  /** A clean shutdown: publish `offline` (retained) then DISCONNECT. */
  async close(timeoutMs: number, announceOffline: boolean): Promise<void> {
    await this.idle(timeoutMs);
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    if (announceOffline && client.connected)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        client.publish(this.status, 'offline', { qos: 1, retain: true }, () => {
          clearTimeout(timer);
          resolve();
        });
      });
    await new Promise<void>((resolve) => client.end(false, {}, () => resolve()));
  }
}

/**
 * Each simulated device is its own MQTT client with its own credentials (per-device auth and topic ACLs
 * work as with real hardware). Messages published while the link is reconnecting are queued by mqtt.js
 * and sent on reconnect; link outages the device model simulates drop the connection abruptly.
 */
export class MqttTransport implements Transport {
  readonly name = 'mqtt';
  readonly stats: TransportStats = { sent: 0, acked: 0, errors: 0 };
  private readonly links = new Map<SimDevice, MqttDeviceLink>();
  private readonly logins = new Map<SimDevice, SimDeviceLogin>();

  constructor(private readonly o: MqttTransportOptions) {}

  async open(devices: readonly SimDeviceLogin[]): Promise<void> {
    await Promise.all(
      devices.map(async (d) => {
        this.logins.set(d.device, d);
        const link = this.linkFor(d);
        await link.connect();
      }),
    );
  }

  private linkFor(d: SimDeviceLogin): MqttDeviceLink {
    const link = new MqttDeviceLink(d.device.siteId, d.device.deviceId, d, this.o, this.stats);
    this.links.set(d.device, link);
    return link;
  }

  send(device: SimDevice, output: DeviceOutput): void | Promise<void> {
    const link = this.links.get(device);
    if (!link) throw new Error(`${device.siteId}/${device.deviceId} is not open on this transport`);
    if (output.type === 'telemetry') {
      link.publish(output.payload);
      return;
    }
    if (!output.up) return link.dropAbruptly();
    const fresh = this.linkFor(this.logins.get(device)!);
    return fresh.connect().catch((err: Error) => {
      this.stats.errors++;
      this.o.log?.(err.message);
    });
  }

  async close(timeoutMs = 5000): Promise<void> {
    await Promise.all(
      [...this.links.values()].map((l) => l.close(timeoutMs, this.o.announceOfflineOnClose ?? true)),
    );
  }
}
