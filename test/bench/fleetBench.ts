/** The simulator's fleet mode: 10,000 devices from one process, QoS 1, through the real gateway. */
import { runFleet } from '../../firmware-sim/src/fleet.ts';
import { fleetGatewayConfig } from '../../firmware-sim/src/gatewayConfig.ts';
import { startBenchGateway } from './gatewayProcess.ts';

export async function fleetBench(devices: number, durationMs: number) {
  const config = fleetGatewayConfig({ devices });
  const gw = await startBenchGateway({ ...config, ingest: { deviceRatePerSec: 1000, deviceBurst: 1000 } });
  try {
    const r = await runFleet({ mqttUrl: gw.mqtt, devices, durationMs, qos: 1 });
    return { ...r, gatewayRssMb: gw.peakRssMb() };
  } finally {
    await gw.stop();
  }
}
