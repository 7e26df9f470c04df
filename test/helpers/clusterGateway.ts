/**
 * Gateways and devices on a NATS cluster (test/helpers/nats.ts): a gateway process configured with the
 * cluster's MQTT URLs (MQTT 3.1.1, failover, persistent session) and its own sites; devices that publish
 * QoS 1 readings to one node and remember which ones the broker acknowledged; what a gateway stored.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import mqtt from 'mqtt';
import type { GatewayChild } from './child.ts';
import { waitFor } from './env.ts';

export interface ClusterSite {
  id: string;
  kind?: 'construction' | 'septic';
  devices: string[];
}

/** A gateway's configuration on the cluster: construction sites have rain gauges, septic sites tanks. */
export function clusterGatewayConfig(
  gatewayId: string,
  urls: string[],
  sites: ClusterSite[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    gatewayId,
    mqtt: { urls, protocolVersion: 4 },
    ingest: { deviceRatePerSec: 100_000, deviceBurst: 100_000 },
    sites: sites.map((s) => ({
      id: s.id,
      kind: s.kind ?? 'septic',
      devices: s.devices.map((d) =>
        (s.kind ?? 'septic') === 'construction'
          ? { id: d, kind: 'rain-gauge', inchesPerTip: 0.01 }
          : { id: d, kind: 'septic-tank', liquidDepthIn: 60 },
      ),
    })),
    ...extra,
  };
}

/** Waits until the gateway's MQTT input is connected and subscribed; the node it is connected to. */
export async function mqttConnected(gw: GatewayChild, timeoutMs = 30_000): Promise<string> {
  return waitFor(
    async () => {
      const h = (await (await fetch(`${gw.httpUrl}/api/health`)).json()) as {
        components?: Array<{ name: string; ok: boolean; broker?: string }>;
      };
      const m = h.components?.find((c) => c.name === 'mqtt');
      return m?.ok ? (m.broker ?? '?') : undefined;
    },
    timeoutMs,
    'the gateway connected to the broker',
  );
}

export interface Device {
  client: mqtt.MqttClient;
  /** Sequence numbers the broker acknowledged (PUBACK). */
  acked: Set<number>;
  /** Publishes readings `from`..`to` at QoS 1, `window` in flight; resolves when every one settled. */
  send(from: number, to: number, window?: number): Promise<void>;
  end(): Promise<void>;
}

/** The source time of reading `seq`: one a minute, ending before now. */
export const readingTs = (seq: number) => Date.UTC(2025, 0, 1) + seq * 60_000;

/** A septic-tank device publishing to `url` (one node) as `siteId/deviceId`. */
export async function device(url: string, siteId: string, deviceId: string): Promise<Device> {
  const client = await mqtt.connectAsync(url, {
    protocolVersion: 4,
    clientId: `${siteId}/${deviceId}`,
    clean: true,
    reconnectPeriod: 300,
    connectTimeout: 5000,
  });
  client.on('error', () => undefined);
  const acked = new Set<number>();
  const topic = `sites/${siteId}/devices/${deviceId}/telemetry`;
  const publishOne = async (seq: number) => {
    const payload = JSON.stringify({ seq, ts: readingTs(seq), levelIn: 10 + (seq % 20) });
    try {
      await client.publishAsync(topic, payload, { qos: 1 });
      acked.add(seq);
    } catch {
      // Not acknowledged (the client was ended): the broker may or may not have it; not counted.
    }
  };
  return {
    client,
    acked,
    async send(from, to, window = 20) {
      let next = from;
      const lane = async () => {
        while (next <= to) await publishOne(next++);
      };
      await Promise.all(Array.from({ length: window }, lane));
    },
    end: () => client.endAsync(),
  };
}

/** The sequence numbers of a device's stored readings, one entry per row (so duplicates show). */
export function storedSeqs(dataDir: string, siteId: string, deviceId: string): number[] {
  const db = new Database(join(dataDir, 'gateway.db'), { readonly: true });
  try {
    const rows = db
      .prepare('SELECT seq FROM readings WHERE site_id = ? AND device_id = ? ORDER BY seq')
      .all(siteId, deviceId) as Array<{ seq: number }>;
    return rows.map((r) => r.seq);
  } finally {
    db.close();
  }
}

/** Readings stored per site. */
export function storedBySite(dataDir: string): Record<string, number> {
  const db = new Database(join(dataDir, 'gateway.db'), { readonly: true });
  try {
    const rows = db
      .prepare('SELECT site_id AS s, COUNT(*) AS n FROM readings GROUP BY site_id')
      .all() as Array<{
      s: string;
      n: number;
    }>;
    return Object.fromEntries(rows.map((r) => [r.s, r.n]));
  } finally {
    db.close();
  }
}
