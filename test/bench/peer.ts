/**
 * `npm run bench:peer`: the gateway beside the alternative a user would pick, Node-RED with
 * node-red-contrib-influxdb, on the same Mosquitto broker and the same InfluxDB 1.6.7.
 *
 * Node-RED is installed into a temporary folder (never a dependency of the product) and runs a batched
 * MQTT-to-InfluxDB flow: mqtt in (QoS 1, persistent session) -> json -> join (1,000 messages or 1 s) ->
 * function (to InfluxDB points) -> influxdb batch. The gateway runs as `npm start` does, with
 * `mqtt.url` set to the same broker (persistent session, QoS 1). Each gets BENCH_PEER_MESSAGES (50,000)
 * QoS 1 messages from the same publisher; the clock runs from the first publish to the query that counts
 * the last point (or until no new point came for BENCH_PEER_STALL_SECONDS, 20: the rest is lost).
 * The denominator measured first in the same run: the same publishers to a plain QoS 1 subscriber on the
 * same Mosquitto (persistent session), nothing stored: messages/s from the first publish to the last
 * message received.
 * Printed: time until every point is queryable, points/s, points lost, peak RSS, and the ratios.
 *
 * BENCH_PEER_QUEUE: Mosquitto's `max_queued_messages` for both (default 0: unlimited; `default` leaves
 * Mosquitto's own default of 1000, under which a subscriber that falls behind loses messages).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { hashPassword } from '../../shared/src/password.ts';
import { freePort, waitFor } from '../helpers/env.ts';
import { startInfluxd } from '../helpers/influxd.ts';
import { start as startMosquitto } from '../helpers/mosquitto.ts';
import { node, startBenchGateway, stopChild } from './gatewayProcess.ts';

const ROOT = join(import.meta.dirname, '../..');
const N = Number(process.env.BENCH_PEER_MESSAGES ?? 50_000);
const CLIENTS = 8;
const WINDOW = 500;
const STALL_MS = Number(process.env.BENCH_PEER_STALL_SECONDS ?? 20) * 1000;
const QUEUE = process.env.BENCH_PEER_QUEUE ?? '0';
const NODE_RED = '4.1.2';
const NODE_RED_INFLUX = '0.7.0';
const perClient = Math.floor(N / CLIENTS);
const total = perClient * CLIENTS;

interface Result {
  seconds: number;
  points: number;
  lost: number;
  rssMb: number;
}

const peakRssMb = (pid: number) => {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
};

function publish(url: string, site: string): Promise<{ startedAt: number }> {
  return new Promise((resolve, reject) => {
    const p = node([
      join(ROOT, 'test/bench/publisher.ts'),
      JSON.stringify({
        url,
        clients: Array.from({ length: CLIENTS }, (_, i) => ({
          topic: `sites/${site}/devices/d${i}/telemetry`,
        })),
        perClient,
        window: WINDOW,
        startTs: Date.now() - 86_400_000,
      }),
    ]);
    let out = '';
    let err = '';
    p.stdout!.on('data', (d) => {
      out += d;
    });
    p.stderr!.on('data', (d) => {
      err += d;
    });
    p.on('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out.trim().split('\n').at(-1)!))
        : reject(new Error(`publisher: ${err}`)),
    );
  });
}

/** Counts points until all are there or none came for STALL_MS; returns when the last one was counted. */
async function untilQueryable(count: () => Promise<number>): Promise<{ points: number; doneAt: number }> {
  let points = 0;
  let doneAt = Date.now();
  let progressAt = Date.now();
  while (points < total && Date.now() - progressAt < STALL_MS) {
    await new Promise((r) => setTimeout(r, 100));
    const n = await count();
    if (n > points) {
      points = n;
      doneAt = Date.now();
      progressAt = doneAt;
    }
  }
  return { points, doneAt };
}

function installNodeRed(dir: string): void {
  process.stderr.write(
    `installing node-red@${NODE_RED} and node-red-contrib-influxdb@${NODE_RED_INFLUX} in ${dir}\n`,
  );
  writeFileSync(join(dir, 'package.json'), '{"name":"peer-bench","private":true}');
  execFileSync(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--silent',
      '--save-exact',
      `node-red@${NODE_RED}`,
      `node-red-contrib-influxdb@${NODE_RED_INFLUX}`,
    ],
    { cwd: dir, stdio: 'inherit' },
  );
}

/** The batched flow: what the Node-RED documentation and forums recommend for MQTT to InfluxDB at volume. */
function flow(mqttPort: number, influxPort: number, db: string): object[] {
  const toPoints = `
const points = [];
for (const m of msg.payload) {
  const p = m.payload || {};
  const parts = String(m.topic).split('/');
  const fields = {};
  for (const k of Object.keys(p)) if (typeof p[k] === 'number' && k !== 'ts' && k !== 'seq') fields[k] = p[k];
  points.push({ measurement: 'telemetry', tags: { site: parts[1], device: parts[3] }, fields, timestamp: new Date(p.ts) });
}
msg.payload = points;
return msg;`;
  return [
    { id: 'n-tab', type: 'tab', label: 'bench' },
    {
      id: 'n-broker',
      type: 'mqtt-broker',
      name: 'mosquitto',
      broker: '127.0.0.1',
      port: String(mqttPort),
      clientid: 'node-red-bench',
      autoConnect: true,
      usetls: false,
      protocolVersion: '4',
      keepalive: '60',
      cleansession: false,
    },
    {
      id: 'n-influx',
      type: 'influxdb',
      hostname: '127.0.0.1',
      port: String(influxPort),
      protocol: 'http',
      database: db,
      name: 'influx',
      usetls: false,
      influxdbVersion: '1.x',
    },
    {
      id: 'n-in',
      type: 'mqtt in',
      z: 'n-tab',
      topic: 'sites/+/devices/+/telemetry',
      qos: '1',
      datatype: 'auto-detect',
      broker: 'n-broker',
      nl: false,
      rap: false,
      inputs: 0,
      wires: [['n-json']],
    },
    { id: 'n-json', type: 'json', z: 'n-tab', property: 'payload', action: 'obj', wires: [['n-join']] },
    {
      id: 'n-join',
      type: 'join',
      z: 'n-tab',
      mode: 'custom',
      build: 'array',
      property: '',
      propertyType: 'full',
      count: '1000',
      timeout: '1',
      wires: [['n-fn']],
    },
    { id: 'n-fn', type: 'function', z: 'n-tab', func: toPoints, outputs: 1, wires: [['n-out']] },
    { id: 'n-out', type: 'influxdb batch', z: 'n-tab', influxdb: 'n-influx', precision: 'ms', wires: [] },
  ];
}

async function runNodeRed(
  dir: string,
  mqttUrl: string,
  influx: { port: number; count: (db: string) => Promise<number> },
) {
  const mqttPort = Number(new URL(mqttUrl).port);
  const userDir = join(dir, 'user');
  mkdirSync(userDir, { recursive: true });
  writeFileSync(join(userDir, 'flows.json'), JSON.stringify(flow(mqttPort, influx.port, 'peer')));
  const port = await freePort();
  const red: ChildProcess = spawn(
    process.execPath,
    [join(dir, 'node_modules/node-red/red.js'), '--userDir', userDir, '--port', String(port), 'flows.json'],
    {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NODE_RED_ENABLE_PROJECTS: 'false' },
    },
  );
  let log = '';
  red.stdout!.on('data', (d) => {
    log += d;
  });
  red.stderr!.on('data', (d) => {
    log += d;
  });
  try {
    await waitFor(() => /Connected to broker/.test(log), 60_000, `Node-RED connected to the broker:\n${log}`);
    const pub = await publish(mqttUrl, 'peer');
    const { points, doneAt } = await untilQueryable(() => influx.count('peer'));
    if (points < total) process.stderr.write(`Node-RED's log:\n${log.slice(-4000)}\n`);
    return {
      seconds: (doneAt - pub.startedAt) / 1000,
      points,
      lost: total - points,
      rssMb: peakRssMb(red.pid!),
    };
  } finally {
    await stopChild(red);
  }
}

async function runGateway(mqttUrl: string, influx: { url: string; count: (db: string) => Promise<number> }) {
  const gw = await startBenchGateway({
    gatewayId: 'peer-bench',
    mqtt: { url: mqttUrl, clientId: 'gateway-peer-bench' },
    ingest: { deviceRatePerSec: 1_000_000, deviceBurst: 1_000_000 },
    influx: { url: influx.url, db: 'gw', batchSize: 5000, flushIntervalMs: 200 },
    sites: [
      {
        id: 'gw',
        kind: 'septic',
        devices: Array.from({ length: CLIENTS }, (_, i) => ({
          id: `d${i}`,
          kind: 'septic-tank',
          liquidDepthIn: 60,
          passwordHash: hashPassword('unused'),
        })),
      },
    ],
  });
  try {
    const pub = await publish(mqttUrl, 'gw');
    const { points, doneAt } = await untilQueryable(() => influx.count('gw'));
    return { seconds: (doneAt - pub.startedAt) / 1000, points, lost: total - points, rssMb: gw.peakRssMb() };
  } finally {
    await gw.stop();
  }
}

/** The same publishers to a plain subscriber (QoS 1, persistent session): what the broker alone carries. */
async function runRaw(mqttUrl: string): Promise<{ seconds: number; received: number }> {
  const sub = await mqtt.connectAsync(mqttUrl, { clientId: 'raw-peer-bench', clean: false });
  try {
    await sub.subscribeAsync('sites/raw/devices/+/telemetry', { qos: 1 });
    let received = 0;
    let lastAt = Date.now();
    let progressAt = Date.now();
    sub.on('message', () => {
      received++;
      lastAt = Date.now();
    });
    const pub = await publish(mqttUrl, 'raw');
    let seen = 0;
    while (received < total && Date.now() - progressAt < STALL_MS) {
      await new Promise((r) => setTimeout(r, 50));
      if (received > seen) {
        seen = received;
        progressAt = Date.now();
      }
    }
    return { seconds: (lastAt - pub.startedAt) / 1000, received };
  } finally {
    await sub.endAsync();
  }
}

const line = (name: string, r: Result) =>
  `  ${name}: ${r.seconds.toFixed(1)} s until every point was queryable (${(r.points / r.seconds).toFixed(0)} points/s), ${r.lost} of ${total} lost, peak RSS ${r.rssMb.toFixed(0)} MB`;

const dir = mkdtempSync(join(tmpdir(), 'peer-bench-'));
execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
if (!existsSync(join(dir, 'node_modules/node-red'))) installNodeRed(dir);
const influx = await startInfluxd({ db: null });
await influx.query('CREATE DATABASE peer');
await influx.query('CREATE DATABASE gw');
const count = async (db: string) => {
  const rows = await influx.select('SELECT count(levelIn) FROM telemetry', db).catch(() => []);
  return Number(rows[0]?.count ?? 0);
};
const mosquitto = await startMosquitto({
  extraConfig: [`max_queued_messages ${QUEUE === 'default' ? 1000 : QUEUE}`],
});
try {
  const raw = await runRaw(mosquitto.url);
  const gateway = await runGateway(mosquitto.url, { url: influx.url, count });
  const peer = await runNodeRed(dir, mosquitto.url, { port: influx.port, count });
  const rawRate = raw.received / raw.seconds;
  const gwRate = gateway.points / gateway.seconds;
  const out = [
    `peer: ${total} QoS 1 messages each from ${CLIENTS} publishers through Mosquitto (max_queued_messages ${QUEUE === 'default' ? 'default' : QUEUE}) into InfluxDB 1.6.7`,
    `  raw Mosquitto, publishers to a QoS 1 subscriber (nothing kept): ${raw.seconds.toFixed(1)} s (${rawRate.toFixed(0)} msg/s), ${total - raw.received} of ${total} not received`,
    line('gateway (every reading stored in SQLite, evaluated, then written)', gateway),
    line(`Node-RED ${NODE_RED} batched flow (join 1,000 or 1 s, influxdb batch)`, peer),
    `  ratio gateway / raw Mosquitto, per second: ${(gwRate / rawRate).toFixed(2)}; target at least 0.9: ${gwRate / rawRate >= 0.9 ? 'pass' : 'miss'}`,
    `  ratio gateway / Node-RED, points per second: ${(gwRate / (peer.points / peer.seconds)).toFixed(2)}; target at least 1.5: ${gwRate / (peer.points / peer.seconds) >= 1.5 ? 'pass' : 'miss'}`,
  ];
  process.stdout.write(`\n${out.join('\n')}\n`);
} finally {
  await mosquitto.stop();
  await influx.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
