/**
 * `npm run bench`: end-to-end throughput of the gateway at QoS 1 (several publishers -> embedded broker
 * -> durable store -> InfluxDB 1.6.7), against raw aedes QoS 1 (publisher -> subscriber, no gateway)
 * measured in the same run. Prints medians of BENCH_RUNS runs (default 3), the ratio, peak RSS and points lost.
 * Environment: BENCH_MESSAGES (default 100000), BENCH_CLIENTS (default 8), BENCH_RUNS (default 3).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { hashPassword } from '../../shared/src/password.ts';
import { freePort, waitFor } from '../helpers/env.ts';
import { startInfluxd } from '../helpers/influxd.ts';

const ROOT = join(import.meta.dirname, '../..');
const N = Number(process.env.BENCH_MESSAGES ?? 100_000);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 8);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const WINDOW = 500;
const perClient = Math.floor(N / CLIENTS);
const total = perClient * CLIENTS;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function node(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function runPublisher(args: object): Promise<{ sent: number; acked: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const p = node([join(ROOT, 'test/bench/publisher.ts'), JSON.stringify(args)]);
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
        : reject(new Error(`publisher failed: ${err}`)),
    );
  });
}

function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

async function stopChild(p: ChildProcess) {
  if (p.exitCode !== null) return;
  const exited = new Promise((r) => p.once('exit', r));
  p.kill('SIGTERM');
  await exited;
}

/** Raw aedes: publishers in one process, the broker in another, a QoS 1 subscriber here. */
async function rawAedes(): Promise<number> {
  const port = await freePort();
  const broker = node([join(ROOT, 'test/bench/rawBroker.ts'), String(port)]);
  await new Promise<void>((r) => broker.stdout!.once('data', () => r()));
  const sub = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { clientId: 'bench-sub', clean: true });
  let received = 0;
  let done: () => void = () => undefined;
  const all = new Promise<void>((r) => {
    done = r;
  });
  sub.on('message', () => {
    if (++received === total) done();
  });
  await sub.subscribeAsync('sites/#', { qos: 1 });
  const t0 = performance.now();
  await runPublisher({
    url: `mqtt://127.0.0.1:${port}`,
    clients: Array.from({ length: CLIENTS }, (_, i) => ({ topic: `sites/bench/devices/d${i}/telemetry` })),
    perClient,
    window: WINDOW,
    startTs: Date.now() - 86_400_000,
  });
  await all;
  const rate = total / ((performance.now() - t0) / 1000);
  await sub.endAsync();
  await stopChild(broker);
  return rate;
}

/** The gateway as its own process, with InfluxDB 1.6.7; done when every point is in InfluxDB. */
async function gateway(
  influxUrl: string,
  db: string,
  query: (q: string) => Promise<Array<Record<string, unknown>>>,
) {
  const dir = mkdtempSync(join(tmpdir(), 'gw-bench-'));
  const httpPort = await freePort();
  const mqttPort = await freePort();
  const pw = hashPassword('bench');
  const config = {
    gatewayId: 'bench',
    dataDir: join(dir, 'data'),
    http: { port: httpPort, host: '127.0.0.1' },
    mqtt: { port: mqttPort, host: '127.0.0.1' },
    ingest: { deviceRatePerSec: 1_000_000, deviceBurst: 1_000_000 },
    influx: { url: influxUrl, db, batchSize: 5000, flushIntervalMs: 200 },
    sites: [
      {
        id: 'bench',
        kind: 'construction',
        devices: Array.from({ length: CLIENTS }, (_, i) => ({
          id: `d${i}`,
          kind: 'rain-gauge',
          inchesPerTip: 0.01,
          passwordHash: pw,
        })),
      },
    ],
  };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  const gw = node([join(ROOT, 'gateway/src/cli.ts')], {
    GATEWAY_CONFIG: join(dir, 'config.json'),
    LOG_LEVEL: 'warn',
  });
  await waitFor(async () => (await fetch(`http://127.0.0.1:${httpPort}/api/health`)).ok, 30_000, 'gateway');
  const t0 = performance.now();
  const pub = await runPublisher({
    url: `mqtt://127.0.0.1:${mqttPort}`,
    clients: Array.from({ length: CLIENTS }, (_, i) => ({
      username: `bench/d${i}`,
      password: 'bench',
      topic: `sites/bench/devices/d${i}/telemetry`,
    })),
    perClient,
    window: WINDOW,
    startTs: Date.now() - 86_400_000,
  });
  const ackedRate = pub.acked / (pub.ms / 1000);
  let inInflux = 0;
  await waitFor(
    async () => {
      const rows = await query(`SELECT count(rainTips) FROM telemetry WHERE site = 'bench'`);
      inInflux = Number(rows[0]?.count ?? 0);
      return inInflux >= total;
    },
    120_000,
    'every point in InfluxDB',
  ).catch((e: Error) => process.stderr.write(`${e.message}\n`));
  const e2eRate = inInflux / ((performance.now() - t0) / 1000);
  const rss = peakRssMb(gw.pid!);
  await stopChild(gw);
  await query(`DELETE FROM telemetry WHERE site = 'bench'`);
  rmSync(dir, { recursive: true, force: true });
  return { ackedRate, e2eRate, rss, lost: total - inInflux, acked: pub.acked };
}

const influx = await startInfluxd({ db: 'bench' });
const raw: number[] = [];
const gwRuns: Array<Awaited<ReturnType<typeof gateway>>> = [];
try {
  for (let i = 0; i < RUNS; i++) {
    raw.push(await rawAedes());
    gwRuns.push(await gateway(influx.url, 'bench', (q) => influx.select(q, 'bench')));
    process.stderr.write(
      `run ${i + 1}/${RUNS}: raw ${raw[i]!.toFixed(0)} msg/s, gateway ${gwRuns[i]!.e2eRate.toFixed(0)} msg/s\n`,
    );
  }
} finally {
  await influx.stop();
}
const rawMed = median(raw);
const e2eMed = median(gwRuns.map((r) => r.e2eRate));
const ackMed = median(gwRuns.map((r) => r.ackedRate));
const lines = [
  `messages per run: ${total} (${CLIENTS} publishers, QoS 1, window ${WINDOW}), runs: ${RUNS}`,
  `raw aedes QoS 1 (publisher -> subscriber), median: ${rawMed.toFixed(0)} msg/s`,
  `gateway end to end (publish -> SQLite -> InfluxDB 1.6.7), median: ${e2eMed.toFixed(0)} msg/s`,
  `gateway acknowledged (publish -> PUBACK after commit), median: ${ackMed.toFixed(0)} msg/s`,
  `ratio gateway/raw (medians): ${(e2eMed / rawMed).toFixed(2)}`,
  `gateway peak RSS: ${Math.max(...gwRuns.map((r) => r.rss)).toFixed(0)} MB`,
  `points lost: ${gwRuns.reduce((a, r) => a + r.lost, 0)} of ${total * RUNS}`,
];
process.stdout.write(`${lines.join('\n')}\n`);
