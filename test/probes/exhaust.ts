/**
 * Issue 31, "No account can exhaust it", the ingest path. One line of figures per case:
 * - `CASE=quarantine`: a registered gauge whose clock is 30 days ahead sends 3 × the quarantine cap (5)
 *   readings, each under a new client id its `clientIds` pattern allows; anonymous clients send the
 *   same for 40 made-up device names (this release: a total cap of 50); first, one reading padded with
 *   4,000 spaces. Rows kept per device and in
 *   all, refusals counted, the padded row's length.
 * - `CASE=oversize`: a gauge (a persistent session, reconnecting every second) publishes a 300 KB QoS 1
 *   message and then a valid reading, watched for `WATCH_MS` (default 60 s): connections made (the
 *   resends), PUBACKs, whether the valid reading was stored, oversize rejections counted.
 * - `CASE=clock`: the gateway under libfaketime, its wall clock jumped 8 days ahead mid-run; a gauge
 *   sends 47 readings without `ts` over `WATCH_MS` (default 20 s): how many were stored ahead of the real
 *   time, device-silent alerts raised.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { jumpingWallClock } from '../helpers/child.ts';
import { baseConfig, report, sleep, sqlCount, startChild, T, THIS_RELEASE, waitFor } from './support.ts';

const CASE = process.env.CASE ?? 'quarantine';
const DAY = 86_400_000;
const metricSum = async (url: string, name: string, label = '') => {
  const text = await (await fetch(`${url}/metrics`)).text();
  let n = 0;
  for (const m of text.matchAll(new RegExp(`^${name}(\\{[^}]*\\})? (\\S+)$`, 'gm')))
    if (!label || (m[1] ?? '').includes(label)) n += Number(m[2]);
  return n;
};

if (CASE === 'quarantine') {
  const CAP = 5;
  // This release also caps the quarantine in all (TOTAL); an older one refuses the key.
  const TOTAL = 50;
  const config = baseConfig({
    mqtt: { allowAnonymous: true },
    ingest: { quarantinePerClient: CAP, ...(THIS_RELEASE ? { quarantineTotal: TOTAL } : {}) },
  });
  const site = (config.sites as Array<{ devices: Array<Record<string, unknown>> }>)[0]!;
  site.devices[0]!.clientIds = ['rg-1-*'];
  const gw = await startChild(config);
  try {
    const send = async (clientId: string, topic: string, payload: string, auth: boolean) => {
      const c = await mqtt.connectAsync(gw.mqttUrl, {
        clientId,
        reconnectPeriod: 0,
        ...(auth ? { username: 'maple-ridge/rg-1', password: 'pw-rg-1' } : {}),
      });
      c.on('error', () => {});
      const ok = await new Promise<boolean>((resolve) => {
        c.once('close', () => resolve(false));
        c.publish(topic, payload, { qos: 1 }, (err) => resolve(!err));
      });
      await c.endAsync(true);
      return ok;
    };
    const padded = `${' '.repeat(2000)}{"seq": 1,   "rainTips": 1}${' '.repeat(2000)}`;
    await send('anon-padded', T('padded-1'), padded, false);
    let acked = 0;
    const ahead = Date.now() + 30 * DAY;
    for (let i = 0; i < 3 * CAP; i++)
      if (await send(`rg-1-${i}`, T('rg-1'), JSON.stringify({ ts: ahead + i, seq: i, rainTips: i }), true))
        acked++;
    let madeUp = 0;
    for (let d = 0; d < 40; d++)
      for (let i = 0; i < CAP; i++)
        if (await send(`anon-${d}-${i}`, T(`fake-${d}`), JSON.stringify({ seq: i, rainTips: i }), false))
          madeUp++;
    await gw.stop();
    const q = (sql: string) => sqlCount(gw.dataDir, sql);
    report('exhaust/quarantine', {
      cap: CAP,
      totalCap: THIS_RELEASE ? TOTAL : null,
      rg1Sent: 3 * CAP,
      rg1Acknowledged: acked,
      rg1Kept: await q("SELECT COUNT(*) AS n FROM quarantine WHERE device_id = 'rg-1'"),
      madeUpSent: 40 * CAP,
      madeUpAcknowledged: madeUp,
      keptInAll: await q('SELECT COUNT(*) AS n FROM quarantine'),
      paddedSentBytes: Buffer.byteLength(padded),
      paddedKeptChars: await q(
        "SELECT COALESCE(MAX(LENGTH(payload)), 0) AS n FROM quarantine WHERE device_id = 'padded-1'",
      ),
    });
  } finally {
    await gw.cleanup();
  }
} else if (CASE === 'oversize') {
  const WATCH_MS = Number(process.env.WATCH_MS ?? 60_000);
  const gw = await startChild(baseConfig());
  try {
    const c = mqtt.connect(gw.mqttUrl, {
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
      clean: false,
      reconnectPeriod: 1000,
      protocolVersion: process.env.V5 ? 5 : 4,
    });
    c.on('error', () => {});
    // A CONNACK each connection (mqtt.js emits 'connect' only once what it resends was answered).
    let connects = 0;
    c.on('packetreceive', (p) => {
      if (p.cmd === 'connack') connects++;
    });
    const acks: string[] = [];
    const big = JSON.stringify({ seq: 1, rainTips: 1, pad: 'x'.repeat(300 * 1024) });
    c.publish(T('rg-1'), big, { qos: 1 }, (err) => acks.push(err ? `big: ${err.message}` : 'big'));
    c.publish(T('rg-1'), JSON.stringify({ seq: 2, rainTips: 2 }), { qos: 1 }, (err) =>
      acks.push(err ? `valid: ${err.message}` : 'valid'),
    );
    const start = Date.now();
    await waitFor(async () => acks.length === 2, WATCH_MS, 'both answered').catch(() => {});
    const answeredMs = Date.now() - start;
    await sleep(Math.max(0, WATCH_MS - answeredMs));
    c.end(true);
    const oversize = await metricSum(gw.httpUrl, 'gateway_rejections_total', 'reason="oversize"');
    const closed = await metricSum(gw.httpUrl, 'gateway_mqtt_oversize_packets_total');
    await gw.stop();
    report('exhaust/oversize', {
      watchedMs: WATCH_MS,
      protocol: process.env.V5 ? 5 : 4,
      connections: connects,
      resends: Math.max(0, connects - 1),
      answers: acks,
      answeredMs: acks.length === 2 ? answeredMs : null,
      validStored: await sqlCount(gw.dataDir, "SELECT COUNT(*) AS n FROM readings WHERE device_id='rg-1'"),
      oversizeRejections: oversize,
      connectionsClosedOversize: closed,
    });
  } finally {
    await gw.cleanup();
  }
} else if (CASE === 'clock') {
  const WATCH_MS = Number(process.env.WATCH_MS ?? 20_000);
  const N = 47;
  const config = baseConfig();
  const dir = mkdtempSync(join(tmpdir(), 'probe-clock-'));
  const wall = jumpingWallClock(dir);
  const gw = await startChild(config, { env: wall.env });
  try {
    const c = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
    });
    const start = Date.now();
    for (let i = 0; i < N; i++) {
      if (i === 9) wall.set('+8d');
      await c.publishAsync(T('rg-1'), JSON.stringify({ seq: i, rainTips: i }), { qos: 1 });
      await sleep(WATCH_MS / N);
    }
    await c.endAsync();
    const silent = async () =>
      ((await (await fetch(`${gw.httpUrl}/api/alerts?rule=device-silent`)).json()) as unknown[]).length;
    const silentDuring = await silent();
    await gw.stop();
    const realNow = Date.now();
    report('exhaust/clock', {
      watchedMs: Date.now() - start,
      sent: N,
      stored: await sqlCount(gw.dataDir, "SELECT COUNT(*) AS n FROM readings WHERE device_id='rg-1'"),
      storedAheadOfRealTime: await sqlCount(
        gw.dataDir,
        `SELECT COUNT(*) AS n FROM readings WHERE device_id='rg-1' AND ts > ${realNow + 3_600_000}`,
      ),
      deviceSilentAlerts: silentDuring,
    });
  } finally {
    await gw.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
}
