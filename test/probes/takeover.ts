/**
 * Point 3: rg-1 connects with rg-2's client id while rg-2 has a persistent session with a queued message;
 * and a narrower operators' account resumes a wider one's session. Figures: whether rg-2 was kicked, what
 * the intruder received.
 */
import mqtt from 'mqtt';
import { baseConfig, hash, report, S, sleep, startChild, THIS_RELEASE } from './support.ts';

const config = baseConfig({
  mqtt: {
    users: [
      { username: 'ops', passwordHash: hash('pw-ops'), subscribe: ['alerts/#'] },
      { username: 'ops-oak', passwordHash: hash('pw-ops-oak'), subscribe: ['alerts/oak-lane/#'] },
    ],
  },
});
// This release: rg-2's second client id must be configured.
if (THIS_RELEASE)
  (config.sites as Array<{ devices: Array<Record<string, unknown>> }>)[0]!.devices[1]!.clientIds = [
    'rg-2-pub',
  ];
const gw = await startChild(config);
/** Connects; `got` collects every message from the first packet on (queued ones come right after CONNACK). */
function conn(o: mqtt.IClientOptions, got: string[] = []): Promise<mqtt.MqttClient> {
  const c = mqtt.connect(gw.mqttUrl, { reconnectPeriod: 0, ...o });
  c.on('message', (t, p) => got.push(`${t} ${p}`));
  return new Promise((resolve, reject) => {
    c.once('connect', () => resolve(c));
    c.once('error', (e) => {
      c.end(true);
      reject(e);
    });
  });
}
try {
  // rg-2's persistent session, subscribed to its own status, then away; a status is queued for it.
  const rg2 = await conn({
    clientId: 'maple-ridge/rg-2',
    clean: false,
    username: 'maple-ridge/rg-2',
    password: 'pw-rg-2',
  });
  await rg2.subscribeAsync('sites/maple-ridge/devices/rg-2/#', { qos: 1 });
  await rg2.endAsync();
  const pub = await conn({ clientId: 'rg-2-pub', username: 'maple-ridge/rg-2', password: 'pw-rg-2' });
  await pub.publishAsync(S('rg-2'), 'online', { qos: 1 });
  await pub.endAsync();
  // rg-1 takes rg-2's client id.
  const got: string[] = [];
  let intruder: string;
  try {
    const c = await conn(
      { clientId: 'maple-ridge/rg-2', clean: false, username: 'maple-ridge/rg-1', password: 'pw-rg-1' },
      got,
    );
    await sleep(1000);
    intruder = 'connected';
    c.end(true);
  } catch (e) {
    intruder = `refused: ${(e as Error).message}`;
  }
  // A live rg-2, then rg-1 with its id: is the live one kicked?
  const live = await conn({
    clientId: 'maple-ridge/rg-2',
    clean: true,
    username: 'maple-ridge/rg-2',
    password: 'pw-rg-2',
  });
  let liveKicked = false;
  live.on('close', () => {
    liveKicked = true;
  });
  await conn({ clientId: 'maple-ridge/rg-2', username: 'maple-ridge/rg-1', password: 'pw-rg-1' }).then(
    (c) => c.end(true),
    () => {},
  );
  await sleep(500);
  const liveKickedByRg1 = liveKicked;
  live.end(true);

  // ops' session with alerts/#, away; an alert for another site is queued; ops-oak resumes the session.
  const ops = await conn({ clientId: 'ops-tool', clean: false, username: 'ops', password: 'pw-ops' });
  await ops.subscribeAsync('alerts/#', { qos: 1 });
  await ops.endAsync();
  // A 0.6 in storm at maple-ridge: the gateway publishes its storm-inspection alert on alerts/maple-ridge/...
  const gauge = await conn({
    clientId: 'maple-ridge/rg-1',
    username: 'maple-ridge/rg-1',
    password: 'pw-rg-1',
  });
  const t0 = Date.now() - 3 * 3_600_000;
  for (let i = 0; i <= 60; i++)
    await gauge.publishAsync(
      'sites/maple-ridge/devices/rg-1/telemetry',
      JSON.stringify({ ts: t0 + i * 60_000, seq: i, rainTips: 1000 + i }),
      { qos: 1 },
    );
  gauge.end(true);
  await sleep(1000);
  const direct = await conn({ clientId: 'ops-oak-direct', username: 'ops-oak', password: 'pw-ops-oak' });
  const directGrant = await direct.subscribeAsync('alerts/#', { qos: 1 }).then(
    (g) => g.map((x) => x.qos).join(','),
    (e: Error) => `error ${e.message}`,
  );
  direct.end(true);
  const oakGot: string[] = [];
  let oak: string;
  try {
    const c = await conn(
      { clientId: 'ops-tool', clean: false, username: 'ops-oak', password: 'pw-ops-oak' },
      oakGot,
    );
    await sleep(1000);
    oak = 'connected';
    c.end(true);
  } catch (e) {
    oak = `refused: ${(e as Error).message}`;
  }
  report('takeover', {
    rg1WithRg2Id: intruder,
    rg1ReceivedRg2Queue: got,
    liveRg2KickedByRg1: liveKickedByRg1,
    opsOakDirectSubscribeGrant: directGrant,
    opsOakResumingOpsSession: oak,
    opsOakReceived: oakGot.map((m) => m.split(' ')[0]),
  });
} finally {
  await gw.stop();
}
