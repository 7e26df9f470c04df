/**
 * `npm run soak:oversize -- [minutes]` (default 1): four devices (two MQTT 3.1.1, two MQTT 5, persistent
 * sessions that resend what was not acknowledged after every reconnect) each publish, once a second, a
 * 300 KB QoS 1 message (over ingest.maxPayloadBytes, under mqtt.maxPacketBytes) followed by a valid
 * reading. Every oversize message must be answered on the connection it came on (a PUBACK; for MQTT 5 with
 * reason code 0x83) and counted once; every valid reading acknowledged must be stored; no device may
 * reconnect (one CONNACK each: nothing is resent in a loop); the gateway's resident memory must stay flat
 * (at most 40 MB above where it stood after the first fifth of the run). Prints the figures; exits 1
 * when one fails. The suite runs it for 8 s (test/soak/oversize.test.ts); the script runs the bundle
 * `npm start` runs.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import mqtt, { type MqttClient } from 'mqtt';
import type { GatewayChild } from '../helpers/child.ts';
import { faultConfig, metrics, metricValue, sleep, T } from '../helpers/faults.ts';
import { onBundledGateway, printFigures } from './main.ts';

const DEVICES = [
  { id: 'rg-1', v: 4 },
  { id: 'rg-2', v: 4 },
  { id: 'rg-3', v: 5 },
  { id: 'trap-1', v: 5 },
] as const;
const PAD = 'x'.repeat(300 * 1024);

export function oversizeConfig(): Record<string, unknown> {
  return faultConfig();
}

export interface OversizeFigures {
  seconds: number;
  oversizeSent: number;
  oversizeAnswered: number;
  /** MQTT 5 answers with reason code 0x83. */
  oversizeRefusedV5: number;
  oversizeCounted: number;
  validAcked: number;
  validStored: number;
  connacks: Record<string, number>;
  connectionsClosedOversize: number;
  rssMb: { start: number; afterWarmup: number; max: number; end: number };
  problems: string[];
}

export async function oversizeSoak(gw: GatewayChild, seconds: number): Promise<OversizeFigures> {
  const connacks: Record<string, number> = {};
  const clients: MqttClient[] = [];
  for (const d of DEVICES) {
    connacks[d.id] = 0;
    const c = mqtt.connect(gw.mqttUrl, {
      clientId: `maple-ridge/${d.id}`,
      username: `maple-ridge/${d.id}`,
      password: `pw-${d.id}`,
      protocolVersion: d.v,
      clean: false,
      ...(d.v === 5 ? { properties: { sessionExpiryInterval: 3600 } } : {}),
      reconnectPeriod: 1000,
    });
    c.on('packetreceive', (p) => {
      if (p.cmd === 'connack') connacks[d.id]!++;
    });
    c.on('error', () => {});
    clients.push(c);
  }
  await Promise.all(clients.map((c) => new Promise((r) => c.once('connect', r))));
  const start = Date.now();
  const end = start + seconds * 1000;
  const rss = { start: gw.rssMb(), afterWarmup: 0, max: 0, end: 0 };
  let oversizeSent = 0;
  let oversizeAnswered = 0;
  let oversizeRefusedV5 = 0;
  let validAcked = 0;
  const sampler = (async () => {
    while (Date.now() < end) {
      await sleep(1000);
      const v = gw.rssMb();
      rss.max = Math.max(rss.max, v);
      if (!rss.afterWarmup && Date.now() - start >= (seconds * 1000) / 5) rss.afterWarmup = v;
    }
  })();
  const devices = DEVICES.map(async (d, k) => {
    const c = clients[k]!;
    for (let i = 0; Date.now() < end; i++) {
      const tick = Date.now();
      oversizeSent++;
      const big = c.publishAsync(T(d.id), JSON.stringify({ seq: 2 * i, pad: PAD }), { qos: 1 }).then(
        () => oversizeAnswered++,
        (e: Error & { code?: number }) => {
          if (e.code === 0x83) {
            oversizeAnswered++;
            oversizeRefusedV5++;
          }
        },
      );
      const reading = d.id === 'trap-1' ? { sedimentIn: 3 } : { rainTips: i };
      const valid = c
        .publishAsync(T(d.id), JSON.stringify({ seq: 2 * i + 1, ...reading }), { qos: 1 })
        .then(() => validAcked++);
      await Promise.all([big, valid]);
      await sleep(Math.max(0, 1000 - (Date.now() - tick)));
    }
  });
  await Promise.all([sampler, ...devices]);
  rss.end = gw.rssMb();
  for (const c of clients) c.end(true);
  const m = await metrics(gw.httpUrl);
  const oversizeCounted = metricValue(m, 'gateway_rejections_total', 'reason="oversize"');
  const connectionsClosedOversize = metricValue(m, 'gateway_mqtt_oversize_packets_total');
  const db = new Database(join(gw.dataDir, 'gateway.db'), { readonly: true });
  const validStored = (db.prepare('SELECT count(*) AS n FROM readings').get() as { n: number }).n;
  db.close();
  const problems: string[] = [];
  if (oversizeAnswered !== oversizeSent)
    problems.push(`${oversizeSent} oversize sent, ${oversizeAnswered} answered`);
  if (oversizeCounted !== oversizeSent)
    problems.push(`${oversizeSent} oversize sent, ${oversizeCounted} counted`);
  if (validStored !== validAcked) problems.push(`${validAcked} valid acknowledged, ${validStored} stored`);
  for (const [id, n] of Object.entries(connacks)) if (n !== 1) problems.push(`${id} connected ${n} times`);
  if (connectionsClosedOversize)
    problems.push(`${connectionsClosedOversize} connections closed for their size`);
  if (rss.max - rss.afterWarmup > 40)
    problems.push(`RSS rose from ${rss.afterWarmup} to ${rss.max} MB after warm-up`);
  return {
    seconds: (Date.now() - start) / 1000,
    oversizeSent,
    oversizeAnswered,
    oversizeRefusedV5,
    oversizeCounted,
    validAcked,
    validStored,
    connacks,
    connectionsClosedOversize,
    rssMb: rss,
    problems,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const minutes = Number(process.argv[2] ?? 1);
  printFigures(() => onBundledGateway(oversizeConfig(), (gw) => oversizeSoak(gw, minutes * 60)));
}
