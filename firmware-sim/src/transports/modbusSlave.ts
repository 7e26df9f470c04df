/**
 * A Modbus RTU slave for the simulator and the tests: it answers read requests (functions 1-4) for any
 * number of unit ids on one serial port (e.g. the B end of a socat pair whose A end the gateway polls),
 * from a register image per unit that the simulator sets. Faults on demand: a unit that never answers,
 * an answer with a damaged checksum, an exception response.
 */
import { SerialPort } from 'serialport';

/** CRC-16/MODBUS (poly 0xA001 reflected, init 0xFFFF), sent low byte first. */
export function crc16Modbus(bytes: Uint8Array): number {
  let crc = 0xffff;
  for (const b of bytes) {
    crc ^= b;
    for (let i = 0; i < 8; i++) crc = crc & 1 ? (crc >>> 1) ^ 0xa001 : crc >>> 1;
  }
  return crc;
}

/** A frame with its CRC appended. */
export function withCrc(body: Uint8Array): Buffer {
  const crc = crc16Modbus(body);
  return Buffer.from([...body, crc & 0xff, crc >> 8]);
}

/** One unit's values, by zero-based address. */
export interface UnitImage {
  holding: Map<number, number>;
  input: Map<number, number>;
  coils: Map<number, boolean>;
  discrete: Map<number, boolean>;
}

export const emptyImage = (): UnitImage => ({
  holding: new Map(),
  input: new Map(),
  coils: new Map(),
  discrete: new Map(),
});

export interface UnitFaults {
  /** Never answers. */
  dead?: boolean;
  /** The next n answers carry a wrong checksum. */
  badCrc?: number;
  /** The next n requests are answered with this exception code. */
  exception?: { code: number; times: number };
}

export class ModbusSlave {
  readonly units = new Map<number, UnitImage>();
  readonly faults = new Map<number, UnitFaults>();
  /** Requests heard per unit id. */
  readonly heard = new Map<number, number>();
  private port: SerialPort | undefined;
  private buf = Buffer.alloc(0);

  constructor(private readonly o: { path: string; baudRate?: number; log?: (m: string) => void }) {}

  /** The unit's image (created empty). */
  unit(id: number): UnitImage {
    const u = this.units.get(id) ?? emptyImage();
    this.units.set(id, u);
    return u;
  }

  async open(): Promise<void> {
    const port = new SerialPort({ path: this.o.path, baudRate: this.o.baudRate ?? 9600, autoOpen: false });
    await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
    port.on('error', (err) => this.o.log?.(`modbus slave ${this.o.path}: ${err.message}`));
    port.on('data', (d: Buffer) => this.receive(d));
    this.port = port;
  }

  async close(): Promise<void> {
    const port = this.port;
    this.port = undefined;
    if (port?.isOpen) await new Promise<void>((resolve) => port.close(() => resolve()));
  }

  private receive(data: Buffer): void {
    this.buf = Buffer.concat([this.buf, data]);
    while (this.buf.length >= 8) {
      const frame = this.buf.subarray(0, 8);
      const crc = frame[6]! | (frame[7]! << 8);
      const fc = frame[1]!;
      if (fc < 1 || fc > 4 || crc !== crc16Modbus(frame.subarray(0, 6))) {
        this.buf = this.buf.subarray(1);
        continue;
      }
      this.buf = this.buf.subarray(8);
      this.answer(frame[0]!, fc, frame.readUInt16BE(2), frame.readUInt16BE(4));
    }
  }

  private answer(unitId: number, fc: number, start: number, count: number): void {
    this.heard.set(unitId, (this.heard.get(unitId) ?? 0) + 1);
    const image = this.units.get(unitId);
    const faults = this.faults.get(unitId) ?? {};
    if (faults.dead) return;
    if (faults.exception && faults.exception.times > 0) {
      faults.exception.times--;
      this.send(withCrc(Uint8Array.from([unitId, fc | 0x80, faults.exception.code])));
      return;
    }
    if (!image) return;
    let body: number[];
    if (fc === 1 || fc === 2) {
      const table = fc === 1 ? image.coils : image.discrete;
      const bytes = new Array<number>(Math.ceil(count / 8)).fill(0);
      for (let i = 0; i < count; i++) if (table.get(start + i)) bytes[i >> 3]! |= 1 << (i & 7);
      body = [unitId, fc, bytes.length, ...bytes];
    } else {
      const table = fc === 3 ? image.holding : image.input;
      const words: number[] = [];
      for (let i = 0; i < count; i++) {
        const w = table.get(start + i) ?? 0;
        words.push(w >> 8, w & 0xff);
      }
      body = [unitId, fc, words.length, ...words];
    }
    const frame = withCrc(Uint8Array.from(body));
    if (faults.badCrc && faults.badCrc > 0) {
      faults.badCrc--;
      frame[frame.length - 1]! ^= 0xff;
    }
    this.send(frame);
  }

  private send(frame: Buffer): void {
    this.port?.write(frame, (err) => {
      if (err) this.o.log?.(`modbus slave ${this.o.path}: ${err.message}`);
    });
  }
}
