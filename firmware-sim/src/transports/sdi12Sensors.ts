/**
 * SDI-12 sensors behind a simulated adapter, on a serial port or pseudo-terminal (the B end of a socat
 * pair whose A end the gateway opens as its adapter): it reads commands as the gateway writes them
 * (`0M!`, ending at `!`) and answers each addressed sensor as the SDI-12 v1.4 specification says:
 * `a!`, `aI!`, `aM!`/`aMC!` (`atttn`, then a service request after the wait), `aC!`/`aCC!` (`atttnn`),
 * `aD0!`…`aD9!` (signed values, with the CRC after `MC`/`CC`). A sensor can be made silent (no answer),
 * or its next data lines damaged (a wrong CRC), for tests.
 */
import { SerialPort } from 'serialport';
import { withCrc } from '../../../gateway/src/decode/sdi12Protocol.ts';

export interface SimSensorOptions {
  address: string;
  /** The values a measurement takes, asked for at the measurement command. */
  read: () => number[];
  /** Seconds announced before the values are ready (default 0). */
  waitSeconds?: number;
  /** When the service request is sent after `aM!`, in ms (default: at the end of the announced wait). */
  readyAfterMs?: number;
}

interface SensorState extends SimSensorOptions {
  silent: boolean;
  damageNext: number;
  /** The last measurement's values and whether they carry a CRC. */
  buffer: number[];
  crc: boolean;
  timer?: NodeJS.Timeout;
}

/** Values per data line: a D line of an M measurement stays within 35 characters. */
const PER_LINE = 3;

/** A value as SDI-12 sends it: a sign and at most 7 digits. */
const formatValue = (v: number): string => {
  const abs = Math.min(Math.abs(v), 9_999_999);
  const whole = abs < 1 ? 1 : Math.floor(Math.log10(abs)) + 1;
  return `${v < 0 ? '-' : '+'}${String(Number(abs.toFixed(Math.max(0, 7 - whole))))}`;
};

export class SimSdi12Sensors {
  private port: SerialPort | undefined;
  private readonly sensors = new Map<string, SensorState>();
  private pending = '';
  /** Commands received, in order (for tests). */
  readonly commands: string[] = [];
  errors = 0;

  constructor(private readonly o: { path: string; baudRate?: number; log?: (m: string) => void }) {}

  add(s: SimSensorOptions): void {
    this.sensors.set(s.address, { ...s, silent: false, damageNext: 0, buffer: [], crc: false });
  }

  /** A silent sensor answers nothing (a cut cable, a dead sensor). */
  setSilent(address: string, silent: boolean): void {
    this.sensor(address).silent = silent;
  }

  /** The next `n` data lines of the sensor carry a wrong CRC. */
  damage(address: string, n: number): void {
    this.sensor(address).damageNext = n;
  }

  private sensor(address: string): SensorState {
    const s = this.sensors.get(address);
    if (!s) throw new Error(`no simulated SDI-12 sensor at address ${address}`);
    return s;
  }

  async open(): Promise<void> {
    const port = new SerialPort({ path: this.o.path, baudRate: this.o.baudRate ?? 9600, autoOpen: false });
    await new Promise<void>((resolve, reject) => port.open((err) => (err ? reject(err) : resolve())));
    port.on('error', (err) => {
      this.errors++;
      this.o.log?.(`sdi12 ${this.o.path}: ${err.message}`);
    });
    port.on('data', (chunk: Buffer) => this.data(chunk));
    this.port = port;
  }

  private data(chunk: Buffer): void {
    this.pending += chunk.toString('latin1');
    let end = this.pending.indexOf('!');
    while (end >= 0) {
      const cmd = this.pending.slice(0, end + 1).replace(/^[\r\n]+/, '');
      this.pending = this.pending.slice(end + 1);
      this.commands.push(cmd);
      this.answer(cmd);
      end = this.pending.indexOf('!');
    }
    if (this.pending.length > 256) this.pending = '';
  }

  private send(line: string): void {
    this.port?.write(`${line}\r\n`, (err) => {
      if (err) {
        this.errors++;
        this.o.log?.(`sdi12 ${this.o.path}: ${err.message}`);
      }
    });
  }

  private answer(cmd: string): void {
    const a = cmd[0]!;
    const s = this.sensors.get(a);
    if (!s || s.silent) return;
    const body = cmd.slice(1, -1);
    if (body === '') {
      this.send(a);
      return;
    }
    if (body === 'I') {
      this.send(`${a}14GWSIM   SDI12S001SIM0001`);
      return;
    }
    const m = /^(M|MC|C|CC)([1-9]?)$/.exec(body);
    if (m) {
      clearTimeout(s.timer);
      s.buffer = s.read();
      s.crc = m[1] === 'MC' || m[1] === 'CC';
      const wait = String(s.waitSeconds ?? 0).padStart(3, '0');
      const concurrent = m[1]!.startsWith('C');
      const n = Math.min(s.buffer.length, concurrent ? 99 : 9);
      this.send(`${a}${wait}${String(n).padStart(concurrent ? 2 : 1, '0')}`);
      if (!concurrent && (s.waitSeconds ?? 0) > 0)
        s.timer = setTimeout(() => this.send(a), s.readyAfterMs ?? (s.waitSeconds ?? 0) * 1000);
      return;
    }
    const d = /^D(\d)$/.exec(body);
    if (d) {
      const i = Number(d[1]);
      const values = s.buffer.slice(i * PER_LINE, (i + 1) * PER_LINE);
      const text = `${a}${values.map(formatValue).join('')}`;
      if (!s.crc) {
        this.send(text);
        return;
      }
      const line = withCrc(text);
      if (s.damageNext > 0) {
        s.damageNext--;
        this.send(`${line.slice(0, -1)}${line.endsWith('@') ? 'A' : '@'}`);
        return;
      }
      this.send(line);
      return;
    }
    // Not a command this sensor knows: silence, as the specification asks.
  }

  async close(): Promise<void> {
    for (const s of this.sensors.values()) clearTimeout(s.timer);
    const port = this.port;
    this.port = undefined;
    if (!port?.isOpen) return;
    await new Promise<void>((resolve) => port.drain(() => resolve()));
    await new Promise<void>((resolve, reject) => port.close((err) => (err ? reject(err) : resolve())));
  }
}
