/**
 * Point 1: a gauge flushes N buffered readings with `mosquitto_pub -q 1 -l`. Figures: PUBACKs it got,
 * readings stored, rate_limited rejections, seconds taken. `N=5000 RATE=50 BURST=500` (defaults: the
 * configuration's own limits).
 */
import { spawn } from 'node:child_process';
import { baseConfig, report, sqlCount, startChild } from './support.ts';

const n = Number(process.env.N ?? 5000);
const ingest: Record<string, number> = {};
if (process.env.RATE) ingest.deviceRatePerSec = Number(process.env.RATE);
if (process.env.BURST) ingest.deviceBurst = Number(process.env.BURST);
const gw = await startChild(baseConfig(Object.keys(ingest).length ? { ingest } : {}));
try {
  const t0 = Date.now() - n * 60_000;
  const lines = Array.from({ length: n }, (_, i) =>
    JSON.stringify({ seq: i + 1, ts: t0 + i * 60_000, rainTips: i + 1 }),
  ).join('\n');
  const started = Date.now();
  const pub = spawn('mosquitto_pub', [
    ...['-h', '127.0.0.1', '-p', String(gw.mqttPort), '-i', 'maple-ridge/rg-1'],
    ...[
      '-u',
      'maple-ridge/rg-1',
      '-P',
      'pw-rg-1',
      '-q',
      '1',
      '-t',
      'sites/maple-ridge/devices/rg-1/telemetry',
    ],
    ...['-l', '-d'],
  ]);
  let out = '';
  pub.stdout.on('data', (d) => {
    out += d;
  });
  pub.stderr.on('data', (d) => {
    out += d;
  });
  pub.stdin.end(`${lines}\n`);
  const code = await new Promise<number | null>((r) => pub.once('exit', r));
  const seconds = (Date.now() - started) / 1000;
  const pubacks = (out.match(/received PUBACK/g) ?? []).length;
  await new Promise((r) => setTimeout(r, 500));
  const metrics = await (await fetch(`${gw.httpUrl}/metrics`)).text();
  const limited = Number(/gateway_rejections_total\{reason="rate_limited"\} (\d+)/.exec(metrics)?.[1] ?? 0);
  await gw.stop();
  const stored = await sqlCount(gw.dataDir, "SELECT COUNT(*) AS n FROM readings WHERE device_id = 'rg-1'");
  report('flush', {
    lines: n,
    ingest,
    mosquittoPubExit: code,
    pubacks,
    stored,
    rateLimited: limited,
    seconds,
  });
} finally {
  await gw.stop();
}
