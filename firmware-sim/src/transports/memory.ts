import type { DeviceOutput, SimDevice } from '../devices/base.ts';
import type { SimDeviceLogin, Transport, TransportStats } from './types.ts';

/** Records everything in memory (tests, dry runs); optionally prints each output as a JSON line. */
export class MemoryTransport implements Transport {
  readonly name = 'memory';
  readonly stats: TransportStats = { sent: 0, acked: 0, errors: 0 };
  readonly records: { siteId: string; deviceId: string; output: DeviceOutput }[] = [];

  constructor(private readonly print?: (line: string) => void) {}

  async open(_devices: readonly SimDeviceLogin[]): Promise<void> {}

  send(device: SimDevice, output: DeviceOutput): void {
    this.records.push({ siteId: device.siteId, deviceId: device.deviceId, output });
    if (output.type === 'telemetry') {
      this.stats.sent++;
      this.stats.acked++;
    }
    this.print?.(JSON.stringify({ siteId: device.siteId, deviceId: device.deviceId, ...output }));
  }

  async close(): Promise<void> {}
}
