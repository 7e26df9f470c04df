import mqtt, { type MqttClient } from 'mqtt';
import type { TelemetryPayload } from '../../shared/src/telemetry.ts';
import { telemetryTopic } from '../../shared/src/topics.ts';
import { Rng } from './util/prng.ts';

export interface FleetOptions {
  mqttUrl: string;
  devices: number;
  durationMs: number;
  qos?: 0 | 1;
  /** MQTT connections the devices are multiplexed over (a fleet login, not per-device auth). */
  connections?: number;
  /** Unacknowledged publishes allowed per connection. */
  window?: number;
  devicesPerSite?: number;
  sitePrefix?: string;
  /** Shared fleet credential; omit when the gateway allows anonymous clients. */
  username?: string;
  password?: string;
  /** Target total messages a second; absent = as fast as acknowledgements come back. */
  ratePerSec?: number;
  seed?: number;
  log?: (msg: string) => void;
}

export interface FleetResult {
  /** Publishes handed to the client. */
  sent: number;
  /** Publishes acknowledged (PUBACK at QoS 1; written to the socket at QoS 0). */
  acked: number;
  /** Acknowledged messages a second over the run's duration. */
  ratePerSec: number;
  errors: number;
  devices: number;
  connections: number;
  elapsedMs: number;
}

export type FleetKind = 'rain-gauge' | 'sediment-trap' | 'turbidity';

/** The fleet's device ids and kinds: `fleet-000/dev-00000` ...; half rain gauges, a quarter traps, a quarter turbidity. */
export function fleetDevice(i: number, devicesPerSite = 100, sitePrefix = 'fleet') {
  const kind: FleetKind = i % 4 < 2 ? 'rain-gauge' : i % 4 === 2 ? 'sediment-trap' : 'turbidity';
  return {
    siteId: `${sitePrefix}-${String(Math.floor(i / devicesPerSite)).padStart(3, '0')}`,
    deviceId: `dev-${String(i).padStart(5, '0')}`,
    kind,
    role: (i % 8 === 3 ? 'background' : 'outlet') as 'background' | 'outlet',
  };
}

interface FleetDeviceState {
  topic: string;
  kind: FleetKind;
  seq: number;
  value: number;
  rng: Rng;
}

function nextPayload(d: FleetDeviceState, now: number): TelemetryPayload {
  const p: TelemetryPayload = { ts: now, seq: d.seq++ };
  if (d.kind === 'rain-gauge') {
    if (d.rng.chance(0.3)) d.value++;
    p.rainTips = d.value;
  } else if (d.kind === 'sediment-trap') {
    d.value += d.rng.uniform(0, 0.001);
    p.sedimentIn = Math.round(d.value * 100) / 100;
  } else {
    p.turbidityNtu = Math.round(d.rng.uniform(4, 12) * 10) / 10;
  }
  p.batteryV = Math.round(d.rng.normal(3.6, 0.01) * 100) / 100;
  p.rssi = Math.round(Math.min(-30, d.rng.normal(-80, 4)));
  return p;
}

/**
 * Drives `devices` simulated devices from one process over a few MQTT connections and measures the
 * sustained message rate. Per-device credentials and last wills need one connection per device, so the
 * fleet uses a shared login: the gateway config for it sets `mqtt.allowAnonymous: true` (see
 * `fleetGatewayConfig`), or the broker grants the fleet login every device topic.
 */
export async function runFleet(opts: FleetOptions): Promise<FleetResult> {
  const qos = opts.qos ?? 1;
  const nConn = Math.max(1, Math.min(opts.connections ?? 4, opts.devices));
  const window = opts.window ?? 1000;
  const seed = opts.seed ?? 1;
  const states: FleetDeviceState[][] = Array.from({ length: nConn }, () => []);
  for (let i = 0; i < opts.devices; i++) {
    const d = fleetDevice(i, opts.devicesPerSite, opts.sitePrefix);
    states[i % nConn]!.push({
      topic: telemetryTopic(d.siteId, d.deviceId),
      kind: d.kind,
      seq: 0,
      value: d.kind === 'sediment-trap' ? 2 : 0,
      rng: Rng.derive(seed, `${d.siteId}/${d.deviceId}`),
    });
  }
  let sent = 0;
  let acked = 0;
  let errors = 0;
  const clients: MqttClient[] = [];
  try {
    for (let k = 0; k < nConn; k++) {
      const client = mqtt.connect(opts.mqttUrl, {
        clientId: `sim-fleet-${process.pid}-${k}`,
        clean: true,
        reconnectPeriod: 1000,
        ...(opts.username ? { username: opts.username } : {}),
        ...(opts.password ? { password: opts.password } : {}),
      });
      client.on('error', (err) => {
        errors++;
        opts.log?.(`fleet connection ${k}: ${err.message}`);
      });
      clients.push(client);
    }
    await Promise.all(
      clients.map(
        (c, k) =>
          new Promise<void>((resolve, reject) => {
            const timer = setTimeout(
              () => reject(new Error(`fleet connection ${k}: no CONNACK in 10 s`)),
              10_000,
            );
            c.once('connect', () => {
              clearTimeout(timer);
              resolve();
            });
          }),
      ),
    );
    const t0 = performance.now();
    const deadline = t0 + opts.durationMs;
    let ackedAtDeadline: number | undefined;
    const perConnRate = opts.ratePerSec ? opts.ratePerSec / nConn : undefined;
    let outstanding = 0;
    let finish: () => void = () => {};
    const allDone = new Promise<void>((resolve) => {
      finish = resolve;
    });
    let running = nConn;
    const stopTimer = setTimeout(() => {
      ackedAtDeadline = acked;
    }, opts.durationMs);

    clients.forEach((client, k) => {
      const devs = states[k]!;
      let cursor = 0;
      let inflight = 0;
      let sentHere = 0;
      let stopped = false;
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        if (stopped) return;
        stopped = true;
        if (--running === 0 && outstanding === 0) finish();
      };
      const pump = () => {
        timer = undefined;
        const now = performance.now();
        if (now >= deadline) {
          if (inflight === 0) done();
          return;
        }
        const allowed = perConnRate
          ? Math.floor(((now - t0) / 1000) * perConnRate) - sentHere
          : Number.POSITIVE_INFINITY;
        let budget = Math.min(window - inflight, allowed);
        const wall = Date.now();
        while (budget-- > 0) {
          const d = devs[cursor]!;
          cursor = (cursor + 1) % devs.length;
          inflight++;
          outstanding++;
          sentHere++;
          sent++;
          client.publish(d.topic, JSON.stringify(nextPayload(d, wall)), { qos }, (err) => {
            inflight--;
            outstanding--;
            if (err) errors++;
            else acked++;
            if (performance.now() >= deadline) {
              if (inflight === 0) done();
              if (running === 0 && outstanding === 0) finish();
              return;
            }
            if (!timer && inflight < window) timer = setTimeout(pump, 0);
          });
        }
        if (perConnRate && !timer) timer = setTimeout(pump, 5);
      };
      pump();
      setTimeout(() => {
        if (inflight === 0) done();
      }, opts.durationMs + 1);
    });
    await Promise.race([allDone, new Promise((r) => setTimeout(r, opts.durationMs + 10_000))]);
    clearTimeout(stopTimer);
    const elapsedMs = performance.now() - t0;
    const counted = ackedAtDeadline ?? acked;
    return {
      sent,
      acked,
      ratePerSec: Math.round(counted / (Math.min(elapsedMs, opts.durationMs) / 1000)),
      errors,
      devices: opts.devices,
      connections: nConn,
      elapsedMs: Math.round(elapsedMs),
    };
  } finally {
    await Promise.all(clients.map((c) => new Promise<void>((resolve) => c.end(true, {}, () => resolve()))));
  }
}
