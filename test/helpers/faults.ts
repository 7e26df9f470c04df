/**
 * What the fault tests share: a small configuration (rain gauges rg-1..rg-3 and a trap, passwords
 * `pw-<deviceId>`), reading one metric, logging in with an outcome for every case (accepted, refused, or
 * closed before any CONNACK), and a raw MQTT fixed header.
 */
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { testHash } from './gateway.ts';

export const T = (dev: string, site = 'maple-ridge') => `sites/${site}/devices/${dev}/telemetry`;
export const S = (dev: string, site = 'maple-ridge') => `sites/${site}/devices/${dev}/status`;

export function faultConfig(
  extra: Record<string, unknown> = {},
  devices: Array<Record<string, unknown>> = [],
) {
  return {
    gatewayId: 'faults',
    sites: [
      {
        id: 'maple-ridge',
        kind: 'construction',
        devices: [
          ...['rg-1', 'rg-2', 'rg-3'].map((id) => ({
            id,
            kind: 'rain-gauge',
            inchesPerTip: 0.01,
            passwordHash: testHash(`pw-${id}`),
          })),
          { id: 'trap-1', kind: 'sediment-trap', designDepthIn: 24, passwordHash: testHash('pw-trap-1') },
          ...devices,
        ],
      },
    ],
    ...extra,
  };
}

/** The value of a metric line (`name{labels} value`) in a Prometheus text; 0 when absent. */
export function metricValue(text: string, name: string, labels = ''): number {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`^${esc(name)}${labels ? esc(`{${labels}}`) : ''} (\\d+(\\.\\d+)?)$`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

export async function metrics(httpUrl: string, headers: Record<string, string> = {}): Promise<string> {
  return (await fetch(`${httpUrl}/metrics`, { headers })).text();
}

export type LoginOutcome =
  | { client: MqttClient; refused?: undefined }
  | { client?: undefined; refused: string };

/** Connects; resolves with the client, or with why not (a CONNACK refusal, or the connection closed first). */
export function login(url: string, opts: IClientOptions): Promise<LoginOutcome> {
  return new Promise((resolve) => {
    const c = mqtt.connect(url, { reconnectPeriod: 0, connectTimeout: 20_000, ...opts });
    c.once('connect', () => resolve({ client: c }));
    c.once('error', (e) => {
      c.end(true);
      resolve({ refused: e.message });
    });
    c.once('close', () => resolve({ refused: 'connection closed before CONNACK' }));
  });
}

/** Logs in as a device with its own client id; throws when refused. */
export async function device(url: string, deviceId: string, extra: IClientOptions = {}): Promise<MqttClient> {
  const id = `maple-ridge/${deviceId}`;
  const o = await login(url, { clientId: id, username: id, password: `pw-${deviceId}`, ...extra });
  if (!o.client) throw new Error(`${deviceId} could not log in: ${o.refused}`);
  o.client.on('error', () => {});
  return o.client;
}

/** Publishes at QoS 1: 'acknowledged', or 'closed' when the connection closes before the PUBACK. */
export function publishOutcome(
  c: MqttClient,
  topic: string,
  payload: string | Buffer,
): Promise<'acknowledged' | 'closed'> {
  return new Promise((resolve) => {
    c.once('close', () => resolve('closed'));
    c.publish(topic, payload, { qos: 1 }, (err) => {
      if (!err) resolve('acknowledged');
    });
  });
}

/** An MQTT fixed header: the packet type byte and the remaining length as a variable byte integer. */
export function fixedHeader(typeByte: number, length: number): Buffer {
  const v: number[] = [];
  let x = length;
  do {
    let b = x % 128;
    x = Math.floor(x / 128);
    if (x > 0) b |= 0x80;
    v.push(b);
  } while (x > 0);
  return Buffer.from([typeByte, ...v]);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
