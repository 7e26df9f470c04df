/**
 * Issue 17, point 1: one bad-clock reading among three. A gauge sends three QoS 1 readings with mqtt.js
 * (a persistent session, reconnecting every second, resending what was not acknowledged), the middle one
 * stamped 30 days ahead. After 20 s: the PUBACKs received, the refusals the gateway counted
 * (gateway_refused_total), the readings stored and the rows kept in quarantine.
 */
import mqtt from 'mqtt';
import { baseConfig, report, sleep, sqlCount, startChild, T } from './support.ts';

const WATCH_MS = Number(process.env.WATCH_MS ?? 20_000);
const gw = await startChild(baseConfig());
try {
  const c = mqtt.connect(gw.mqttUrl, {
    clientId: 'maple-ridge/rg-1',
    username: 'maple-ridge/rg-1',
    password: 'pw-rg-1',
    clean: false,
    reconnectPeriod: 1000,
  });
  c.on('error', () => {});
  const now = Date.now();
  const readings = [
    { ts: now - 120_000, seq: 1, rainTips: 10 },
    { ts: now + 30 * 86_400_000, seq: 2, rainTips: 11 },
    { ts: now - 60_000, seq: 3, rainTips: 12 },
  ];
  let acked = 0;
  for (const r of readings) c.publish(T('rg-1'), JSON.stringify(r), { qos: 1 }, (err) => !err && acked++);
  await sleep(WATCH_MS);
  c.end(true);
  const text = await (await fetch(`${gw.httpUrl}/metrics`)).text();
  const refused = [...text.matchAll(/^gateway_refused_total\{[^}]*\} (\d+)$/gm)].reduce(
    (n, m) => n + Number(m[1]),
    0,
  );
  await gw.stop();
  const quarantined = await sqlCount(
    gw.dataDir,
    "SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'quarantine'",
  ).then((has) => (has ? sqlCount(gw.dataDir, 'SELECT COUNT(*) AS n FROM quarantine') : 0));
  report('quarantine', {
    watchedMs: WATCH_MS,
    acknowledged: acked,
    refused,
    storedReadings: await sqlCount(gw.dataDir, "SELECT COUNT(*) AS n FROM readings WHERE device_id='rg-1'"),
    quarantined,
  });
} finally {
  await gw.cleanup();
}
