/**
 * One Modbus RTU bus: its RS-485 adapter opened through modbus-serial, one request at a time, each
 * with a bounded timeout, and every failure told as what it was (no answer, a damaged frame, the
 * device's exception) in words a person reads. A port lost or never opened is reopened, with a wait
 * that grows from one second to thirty.
 */
import modbusSerial from 'modbus-serial';
import type { Config } from '../../config/schema.ts';
import type { Log } from '../../pipeline.ts';
import type { ReadRequest } from './plan.ts';

export type BusConfig = Config['modbus'][number];

export type ReadFailure = 'timeout' | 'crc' | 'exception' | 'closed' | 'other';
export type ReadOutcome =
  | { ok: true; data: readonly number[] | readonly boolean[] }
  | { ok: false; kind: ReadFailure; words: string };

const TABLE_WORDS: Record<ReadRequest['table'], string> = {
  holding: 'holding registers',
  input: 'input registers',
  coil: 'coils',
  discrete: 'discrete inputs',
};

/** What a read asked for, in words: "holding registers 0–3". */
export const requestWords = (r: ReadRequest): string =>
  `${TABLE_WORDS[r.table]} ${r.start}${r.count > 1 ? `–${r.start + r.count - 1}` : ''}`;

/** A Modbus exception code in words (Modbus application protocol v1.1b3, section 7). */
export function exceptionWords(code: number, r: ReadRequest): string {
  switch (code) {
    case 1:
      return `the device does not answer requests for its ${TABLE_WORDS[r.table]}`;
    case 2:
      return `the device has no ${requestWords(r)}: its register map differs from its profile`;
    case 3:
      return `the device refused the request for ${requestWords(r)}`;
    case 4:
      return 'the device reported a fault of its own';
    case 5:
    case 6:
      return 'the device was busy and did not read its values';
    default:
      return `the device refused the request for ${requestWords(r)} (exception ${code})`;
  }
}

interface Client {
  isOpen: boolean;
  setID(id: number): void;
  setTimeout(ms: number): void;
  connectRTUBuffered(path: string, options: object): Promise<void>;
  readCoils(a: number, n: number): Promise<{ data: boolean[] }>;
  readDiscreteInputs(a: number, n: number): Promise<{ data: boolean[] }>;
  readHoldingRegisters(a: number, n: number): Promise<{ data: number[] }>;
  readInputRegisters(a: number, n: number): Promise<{ data: number[] }>;
  close(cb?: () => void): void;
  on(event: 'close' | 'error', fn: (e?: unknown) => void): void;
}

/** The package is CommonJS: its module object is the client's constructor. */
const ModbusRTU = modbusSerial as unknown as new () => Client;

export class ModbusBus {
  private client: Client | undefined;
  private reopenTimer: NodeJS.Timeout | undefined;
  private retryMs = 1000;
  private stopped = false;
  /** Why the port is not open, when it is not. */
  lastPortError: string | undefined;
  reopens = 0;

  constructor(
    readonly cfg: BusConfig,
    private readonly log: Log,
  ) {}

  get isOpen(): boolean {
    return this.client?.isOpen === true;
  }

  /** Opens the port; a port that cannot be opened is retried later (not an error). */
  async open(): Promise<void> {
    if (this.stopped || this.client) return;
    const client = new ModbusRTU();
    try {
      await client.connectRTUBuffered(this.cfg.path, {
        baudRate: this.cfg.baudRate,
        parity: this.cfg.parity,
        dataBits: this.cfg.dataBits,
        stopBits: this.cfg.stopBits,
      });
    } catch (e) {
      // The serial library's message, less its "Error: " and its repeated path: "No such file or directory".
      const why = (e as Error).message.replace(/^(Error: )+/, '').replace(/, cannot open .*$/, '');
      this.lastPortError = `the adapter ${this.cfg.path} could not be opened (${why.toLowerCase()})`;
      this.log.warn({ path: this.cfg.path, err: (e as Error).message }, 'modbus bus not opened');
      this.scheduleReopen();
      return;
    }
    if (this.stopped) {
      client.close();
      return;
    }
    client.on('close', () => this.lost(client, 'the adapter was closed or unplugged'));
    client.on('error', (e) => this.log.warn({ path: this.cfg.path, err: String(e) }, 'modbus bus error'));
    this.client = client;
    this.lastPortError = undefined;
    this.retryMs = 1000;
    this.log.info({ path: this.cfg.path }, 'modbus bus open');
  }

  private lost(client: Client, why: string): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.lastPortError = why;
    if (this.stopped) return;
    this.log.warn({ path: this.cfg.path }, 'modbus bus lost; reopening');
    this.scheduleReopen();
  }

  private scheduleReopen(): void {
    if (this.stopped || this.reopenTimer) return;
    const wait = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, 30_000);
    this.reopenTimer = setTimeout(() => {
      this.reopenTimer = undefined;
      this.reopens++;
      void this.open();
    }, wait);
    this.reopenTimer.unref();
  }

  /** One read request to one unit; never throws. */
  async read(unitId: number, r: ReadRequest): Promise<ReadOutcome> {
    const client = this.client;
    if (!client?.isOpen)
      return {
        ok: false,
        kind: 'closed',
        words: this.lastPortError ?? `the adapter ${this.cfg.path} is not open`,
      };
    client.setID(unitId);
    client.setTimeout(this.cfg.timeoutMs);
    try {
      const res =
        r.table === 'coil'
          ? await client.readCoils(r.start, r.count)
          : r.table === 'discrete'
            ? await client.readDiscreteInputs(r.start, r.count)
            : r.table === 'holding'
              ? await client.readHoldingRegisters(r.start, r.count)
              : await client.readInputRegisters(r.start, r.count);
      return { ok: true, data: res.data.slice(0, r.count) };
    } catch (e) {
      return failure(e, r, this.cfg.timeoutMs);
    }
  }

  async close(): Promise<void> {
    this.stopped = true;
    if (this.reopenTimer) clearTimeout(this.reopenTimer);
    this.reopenTimer = undefined;
    const client = this.client;
    this.client = undefined;
    if (client?.isOpen) await new Promise<void>((resolve) => client.close(() => resolve()));
  }
}

/** A failed read told as what it was. */
function failure(e: unknown, r: ReadRequest, timeoutMs: number): ReadOutcome {
  const err = e as { message?: string; errno?: string; modbusCode?: number };
  if (typeof err.modbusCode === 'number')
    return { ok: false, kind: 'exception', words: exceptionWords(err.modbusCode, r) };
  if (err.errno === 'ETIMEDOUT')
    return {
      ok: false,
      kind: 'timeout',
      words: `no answer within ${timeoutMs / 1000} s to a request for ${requestWords(r)}`,
    };
  if (err.message === 'CRC error')
    return {
      ok: false,
      kind: 'crc',
      words: `the answer for ${requestWords(r)} arrived damaged (its checksum was wrong)`,
    };
  if (/not open/i.test(err.message ?? ''))
    return { ok: false, kind: 'closed', words: 'the adapter is not open' };
  return {
    ok: false,
    kind: 'other',
    words: `the answer for ${requestWords(r)} could not be read: ${err.message ?? String(e)}`,
  };
}
