/**
 * `npm run soak:outage -- [minutes down] [msg/s]`: InfluxDB (influxd 1.6.7) is killed under a steady QoS 1
 * load for the given time, then started again; the gateway must lose nothing and drain in order.
 * Prints the backlog at its peak, the drain time and the points missing (must be 0).
 */
import mqtt from 'mqtt';
import { hashPassword } from '../../shared/src/password.ts';
import { startBenchGateway } from '../bench/gatewayProcess.ts';
import { waitFor } from '../helpers/env.ts';
import { startInfluxd } from '../helpers/influxd.ts';

const minutes = Number(process.argv[2] ?? 10);
const rate = Number(process.argv[3] ?? 500);
const log = (m: string) => process.stderr.write(`[${new Date().toISOString()}] ${m}\n`);

const influx = await startInfluxd({ db: 'soak' });
const pw = hashPassword('soak');
const gw = await startBenchGateway({
  gatewayId: 'soak',
  ingest: { deviceRatePerSec: 10_000, deviceBurst: 10_000 },
  influx: { url: influx.url, db: 'soak', batchSize: 5000, flushIntervalMs: 500 },
  sites: [
    {
      id: 'soak',
      kind: 'septic',
      devices: [{ id: 'd1', kind: 'septic-tank', liquidDepthIn: 60, passwordHash: pw }],
    },
  ],
});
const backlog = async () => {
  const h = (await (await fetch(`${gw.http}/api/health`)).json()) as {
    components: Array<{ name: string; backlog?: number }>;
  };
  return h.components.find((c) => c.name === 'influxdb')?.backlog ?? 0;
};
const c = await mqtt.connectAsync(gw.mqtt, { clientId: 'soak/d1', username: 'soak/d1', password: 'soak' });
let seq = 0;
let acked = 0;
const start = Date.now() - 3_600_000;
const timer = setInterval(() => {
  for (let i = 0; i < rate / 10; i++) {
    const s = seq++;
    c.publish(
      'sites/soak/devices/d1/telemetry',
      JSON.stringify({ ts: start + s, seq: s, levelIn: (s % 600) / 10 }),
      { qos: 1 },
      (err) => {
        if (!err) acked++;
      },
    );
  }
}, 100);

await new Promise((r) => setTimeout(r, 10_000));
log(`InfluxDB killed after ${seq} messages; down for ${minutes} min at ${rate} msg/s`);
await influx.kill();
let peak = 0;
const downUntil = Date.now() + minutes * 60_000;
while (Date.now() < downUntil) {
  await new Promise((r) => setTimeout(r, 5000));
  peak = Math.max(peak, await backlog());
  log(`backlog ${peak}, acknowledged ${acked}`);
}
await influx.restart();
log('InfluxDB restarted');
await new Promise((r) => setTimeout(r, 10_000));
clearInterval(timer);
await new Promise((r) => setTimeout(r, 2000));
const sent = seq;
const t0 = Date.now();
await waitFor(async () => (await backlog()) === 0, 30 * 60_000, 'the backlog to drain');
const drainS = (Date.now() - t0) / 1000;
const rows = await influx.select('SELECT count(levelIn) FROM telemetry', 'soak');
const inInflux = Number(rows[0]?.count ?? 0);
// Order: seq is a field; the points' times follow seq, so the last point must carry the largest seq.
const last = await influx.select('SELECT last(seq) FROM telemetry', 'soak');
await c.endAsync();
await gw.stop();
await influx.stop();
const result = {
  minutesDown: minutes,
  rate,
  sent,
  acknowledged: acked,
  inInflux,
  missing: acked - inInflux,
  peakBacklog: peak,
  drainSecondsAfterLoad: drainS,
  lastSeq: last[0]?.last,
};
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
process.exit(result.missing === 0 ? 0 : 1);
