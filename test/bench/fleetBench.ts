/**
 * The simulator's fleet mode: 10,000 devices from one process at QoS 1, first against a plain aedes
 * broker (what the simulator itself sustains), then through the real gateway (stored and evaluated).
 */
import { join } from 'node:path';
import { runFleet } from '../../firmware-sim/src/fleet.ts';
import { fleetGatewayConfig } from '../../firmware-sim/src/gatewayConfig.ts';
import { freePort } from '../helpers/env.ts';
import { node, startBenchGateway, stopChild } from './gatewayProcess.ts';

export async function fleetBench(devices: number, durationMs: number) {
  const port = await freePort();
  const broker = node([join(import.meta.dirname, 'rawBroker.ts'), String(port)]);
  await new Promise<void>((r) => broker.stdout!.once('data', () => r()));
  const raw = await runFleet({ mqttUrl: `mqtt://127.0.0.1:${port}`, devices, durationMs, qos: 1 });
  await stopChild(broker);

  const config = fleetGatewayConfig({ devices });
  const gw = await startBenchGateway({ ...config, ingest: { deviceRatePerSec: 1000, deviceBurst: 1000 } });
  try {
    const r = await runFleet({ mqttUrl: gw.mqtt, devices, durationMs, qos: 1 });
    return { raw, gateway: { ...r, gatewayRssMb: gw.peakRssMb() } };
  } finally {
    await gw.stop();
  }
}
