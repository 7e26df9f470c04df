import { SerialPort } from 'serialport';
import { frameWithCrc } from '../../../shared/src/crc16.ts';
import type { SerialPayload } from '../../../shared/src/telemetry.ts';
import type { DeviceOutput, SimDevice } from '../devices/base.ts';
import type { SimDeviceLogin, Transport, TransportStats } from './types.ts';

/** One serial line: the device's JSON object with siteId and deviceId inside, `*XXXX` CRC-16/CCITT-FALSE, `\n`. */
export function serialLine(siteId: string, deviceId: string, payload: object, crc = true): string {
  const obj: SerialPayload = { siteId, deviceId, ...payload };
  const json = JSON.stringify(obj);
  return `${crc ? frameWithCrc(json) : json}\n`;
}

/**
 * Writes every device's readings as lines into a serial port or pseudo-terminal (e.g. the B end of a
 * socat pair whose A end the gateway reads), like a field concentrator on an RS-485 bus. A serial
 * line has no session, so link outages only delay lines (the device model buffers them).
 */
export class SerialTransport implements Transport {
  readonly name = 'serial';
  readonly stats: TransportStats = { sent: 0, acked: 0, errors: 0 };
  private port: SerialPort | undefined;

  constructor(
    private readonly o: { path: string; baudRate?: number; crc?: boolean; log?: (m: string) => void },
  ) {}

  async open(_devices: readonly SimDeviceLogin[]): Promise<void> {
    const port = new SerialPort({ path: this.o.path, baudRate: this.o.baudRate ?? 9600, autoOpen: false });
    await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
    port.on('error', (err) => {
      this.stats.errors++;
      this.o.log?.(`serial ${this.o.path}: ${err.message}`);
    });
    this.port = port;
  }

  send(device: SimDevice, output: DeviceOutput): void {
    if (output.type !== 'telemetry') return;
    const port = this.port;
    if (!port) throw new Error(`serial ${this.o.path} is not open`);
    this.stats.sent++;
    port.write(serialLine(device.siteId, device.deviceId, output.payload, this.o.crc ?? true), (err) => {
      if (err) {
        this.stats.errors++;
        this.o.log?.(`serial ${this.o.path}: ${err.message}`);
      } else this.stats.acked++;
    });
  }

  async close(): Promise<void> {
    const port = this.port;
    this.port = undefined;
    if (!port) return;
    await new Promise<void>((resolve) => port.drain(() => resolve()));
    await new Promise<void>((resolve, reject) => port.close((err) => (err ? reject(err) : resolve())));
  }
}
