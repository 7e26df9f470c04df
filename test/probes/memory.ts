/**
 * Point 2: one device, or a client that never logs in, against the gateway's memory. Each case runs
 * against its own gateway process and reports its RSS before and at the peak, and whether it survived.
 *   CASE=status   a 150 MB publish to the device's own status topic
 *   CASE=sessions 1,000 persistent sessions with one device's credentials
 *   CASE=raw      4 raw TCP clients, never logged in, announce a 250 MB PUBLISH and stream zeros
 *   CASE=connect  a raw TCP client that never sends CONNECT: how long until the gateway closes it
 */
import { connect as tcp } from 'node:net';
import mqtt from 'mqtt';
import { baseConfig, type Child, report, S, sleep, startChild, THIS_RELEASE } from './support.ts';

const which = process.env.CASE ?? 'status';

async function peakWhile(gw: Child, work: Promise<unknown>): Promise<number> {
  let peak = gw.rssMb();
  let done = false;
  void work.finally(() => {
    done = true;
  });
  while (!done && gw.alive()) {
    peak = Math.max(peak, gw.rssMb());
    await sleep(100);
  }
  return Math.max(peak, gw.rssMb());
}

const config = baseConfig();
// PATTERN=1 (this release): rg-1 may use client ids s-*, so the sessions limit is what refuses them.
if (process.env.PATTERN && THIS_RELEASE) {
  const devices = (config.sites as Array<{ devices: Array<Record<string, unknown>> }>)[0]!.devices;
  devices[0]!.clientIds = ['s-*'];
}
const gw = await startChild(config);
const before = gw.rssMb();
try {
  if (which === 'status') {
    const c = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
      reconnectPeriod: 0,
    });
    c.on('error', () => {});
    const sent = c.publishAsync(S('rg-1'), Buffer.alloc(150 * 1024 * 1024, 0x61), { qos: 1 }).then(
      () => 'acknowledged',
      (e: Error) => `failed: ${e.message}`,
    );
    const closed = new Promise<string>((r) => c.once('close', () => r('connection closed')));
    const outcome = Promise.race([sent, closed, sleep(60_000).then(() => 'no outcome in 60 s')]);
    const peak = await peakWhile(gw, outcome);
    await sleep(1000);
    report('memory', {
      case: which,
      outcome: await outcome,
      rssBeforeMb: before,
      rssPeakMb: peak,
      alive: gw.alive(),
      tail: gw.alive() ? undefined : gw.output().slice(-300),
    });
    c.end(true);
  } else if (which === 'sessions') {
    const clients: mqtt.MqttClient[] = [];
    let refused = 0;
    const work = (async () => {
      for (let i = 0; i < 1000 && gw.alive(); i++) {
        try {
          const c = await mqtt.connectAsync(gw.mqttUrl, {
            clientId: `s-${i}`,
            clean: false,
            username: 'maple-ridge/rg-1',
            password: 'pw-rg-1',
            reconnectPeriod: 0,
            connectTimeout: 5000,
          });
          c.on('error', () => {});
          await c.subscribeAsync('sites/maple-ridge/devices/rg-1/#', { qos: 1 });
          clients.push(c);
        } catch {
          refused++;
        }
      }
      // Every session gets queued messages while it is away.
      for (const c of clients) c.end(true);
      const pub = await mqtt
        .connectAsync(gw.mqttUrl, {
          clientId: 'maple-ridge/rg-1',
          username: 'maple-ridge/rg-1',
          password: 'pw-rg-1',
          reconnectPeriod: 0,
        })
        .catch(() => undefined);
      for (let k = 0; pub && k < Number(process.env.MSGS ?? 500) && gw.alive(); k++)
        await pub.publishAsync(S('rg-1'), Buffer.alloc(2000, 0x61), { qos: 1 }).catch(() => {});
      pub?.end(true);
    })();
    const peak = await peakWhile(gw, work);
    await sleep(1000);
    report('memory', {
      case: which,
      sessionsAccepted: clients.length,
      refused,
      rssBeforeMb: before,
      rssPeakMb: peak,
      rssAfterMb: gw.rssMb(),
      alive: gw.alive(),
    });
  } else if (which === 'raw') {
    const seconds = Number(process.env.SECONDS ?? 20);
    const sockets = Array.from({ length: 4 }, () => tcp(gw.mqttPort, '127.0.0.1'));
    let closedAt = 0;
    const t0 = Date.now();
    const work = Promise.all(
      sockets.map(
        (s) =>
          new Promise<void>((resolve) => {
            s.on('error', () => {});
            s.once('close', () => {
              closedAt = Math.max(closedAt, Date.now() - t0);
              resolve();
            });
            s.once('connect', () => {
              // PUBLISH, remaining length 250 MB (variable byte integer), then zeros.
              const len = 250 * 1024 * 1024;
              const v: number[] = [];
              let x = len;
              do {
                let b = x % 128;
                x = Math.floor(x / 128);
                if (x > 0) b |= 0x80;
                v.push(b);
              } while (x > 0);
              s.write(Buffer.from([0x30, ...v]));
              const chunk = Buffer.alloc(64 * 1024);
              const pump = () => {
                while (!s.destroyed && Date.now() - t0 < seconds * 1000) if (!s.write(chunk)) return;
                if (!s.destroyed) s.end();
                resolve();
              };
              s.on('drain', pump);
              pump();
            });
          }),
      ),
    );
    const peak = await peakWhile(gw, Promise.race([work, sleep(seconds * 1000 + 5000)]));
    report('memory', {
      case: which,
      connections: 4,
      seconds,
      closedAfterMs: closedAt || null,
      rssBeforeMb: before,
      rssPeakMb: peak,
      alive: gw.alive(),
    });
    for (const s of sockets) s.destroy();
  } else if (which === 'connect') {
    const s = tcp(gw.mqttPort, '127.0.0.1');
    s.on('error', () => {});
    const t0 = Date.now();
    const closedAfter = await Promise.race([
      new Promise<number>((r) => s.once('close', () => r(Date.now() - t0))),
      sleep(60_000).then(() => -1),
    ]);
    report('memory', { case: which, closedAfterMs: closedAfter });
    s.destroy();
  }
} finally {
  await gw.stop();
}
