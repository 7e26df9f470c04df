/**
 * Alert latency: from the publish of the reading that crosses a threshold (a holding tank reaching its
 * high level) to the alert on MQTT and in the API, under a steady background load of other readings.
 */
import mqtt from 'mqtt';
import { hashPassword } from '../../shared/src/password.ts';
import { percentile, startBenchGateway } from './gatewayProcess.ts';

export async function alertLatency(opts: { cycles: number; backgroundPerSec: number }) {
  const pw = hashPassword('bench');
  const gw = await startBenchGateway({
    gatewayId: 'bench-latency',
    ingest: { deviceRatePerSec: 10_000, deviceBurst: 10_000 },
    mqtt: { users: [{ username: 'ops', passwordHash: pw, subscribe: ['alerts/#'] }] },
    sites: [
      {
        id: 'tank',
        kind: 'holding-tank',
        devices: [{ id: 't1', kind: 'holding-tank', liquidDepthIn: 72, highLevelIn: 60, passwordHash: pw }],
      },
      {
        id: 'load',
        kind: 'septic',
        devices: Array.from({ length: 10 }, (_, i) => ({
          id: `s${i}`,
          kind: 'septic-tank',
          liquidDepthIn: 60,
          passwordHash: pw,
        })),
      },
    ],
  });
  try {
    const watcher = await mqtt.connectAsync(gw.mqtt, { username: 'ops', password: 'bench' });
    await watcher.subscribeAsync('alerts/tank/#', { qos: 1 });
    const tank = await mqtt.connectAsync(gw.mqtt, {
      clientId: 'tank/t1',
      username: 'tank/t1',
      password: 'bench',
    });
    const loaders = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        mqtt.connectAsync(gw.mqtt, { clientId: `load/s${i}`, username: `load/s${i}`, password: 'bench' }),
      ),
    );
    // Background load: backgroundPerSec readings a second spread over ten tank sensors, QoS 1.
    let bgSeq = 0;
    let bgSent = 0;
    const bg = setInterval(() => {
      for (let k = 0; k < opts.backgroundPerSec / 100; k++) {
        const i = bgSeq % 10;
        const seq = bgSeq++;
        loaders[i]!.publish(
          `sites/load/devices/s${i}/telemetry`,
          JSON.stringify({ seq, levelIn: 20 + (seq % 50) / 10 }),
          { qos: 1 },
          () => {
            bgSent++;
          },
        );
      }
    }, 10);
    const waitEvent = (event: string) =>
      new Promise<number>((resolve) => {
        const on = (_t: string, p: Buffer) => {
          if ((JSON.parse(p.toString()) as { event: string }).event === event) {
            watcher.off('message', on);
            resolve(performance.now());
          }
        };
        watcher.on('message', on);
      });
    const openCount = async () =>
      ((await (await fetch(`${gw.http}/api/alerts?siteId=tank&status=open`)).json()) as unknown[]).length;
    const viaMqtt: number[] = [];
    const viaApi: number[] = [];
    let seq = 0;
    await new Promise((r) => setTimeout(r, 1000));
    for (let c = 0; c < opts.cycles; c++) {
      const raised = waitEvent('raise');
      const t0 = performance.now();
      tank.publish('sites/tank/devices/t1/telemetry', JSON.stringify({ seq: seq++, levelIn: 65 }), {
        qos: 1,
      });
      let tApi = 0;
      while ((await openCount()) === 0) tApi = performance.now();
      tApi = performance.now();
      viaMqtt.push((await raised) - t0);
      viaApi.push(tApi - t0);
      const resolved = waitEvent('resolve');
      tank.publish('sites/tank/devices/t1/telemetry', JSON.stringify({ seq: seq++, levelIn: 5 }), { qos: 1 });
      await resolved;
      await new Promise((r) => setTimeout(r, 20));
    }
    clearInterval(bg);
    for (const c of [watcher, tank, ...loaders]) await c.endAsync();
    return {
      cycles: opts.cycles,
      background: bgSent,
      mqttP50: percentile(viaMqtt, 50),
      mqttP99: percentile(viaMqtt, 99),
      apiP50: percentile(viaApi, 50),
      apiP99: percentile(viaApi, 99),
    };
  } finally {
    await gw.stop();
  }
}
