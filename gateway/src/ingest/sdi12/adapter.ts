/**
 * One SDI-12 adapter on a serial port: it takes an SDI-12 command as ASCII (`0M!`), sends it on the bus
 * (with the break and the bus's own timing) and returns the sensor's response line (`00012<CR><LF>`).
 * Opened by path, reopened every `reopenMs` while missing or lost; each outage logged once. One command
 * at a time: the input's queue sees to that.
 */
import { SerialPort } from 'serialport';
import type { Log } from '../../pipeline.ts';
import { errMessage, type SerialPortLike } from '../serial/port.ts';

/** The part of a serialport stream the adapter uses. */
export interface Sdi12Port extends SerialPortLike {
  write(data: string, callback: (err: Error | null | undefined) => void): unknown;
}

export type OpenSdi12Port = (opts: { path: string; baudRate: number }) => Sdi12Port;

export const openSdi12Port: OpenSdi12Port = ({ path, baudRate }) =>
  new SerialPort({ path, baudRate, autoOpen: false });

/** A line longer than this is not an SDI-12 response (at most 75 characters of values, CRC, address). */
const MAX_LINE = 256;

export class Sdi12Adapter {
  private port: Sdi12Port | undefined;
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;
  private partial = '';
  private readonly lines: string[] = [];
  private waiter: ((line: string | undefined) => void) | undefined;
  private outageSince: number | undefined;
  lastError: string | undefined;
  reopens = 0;
  private everOpened = false;

  constructor(
    readonly path: string,
    private readonly baudRate: number,
    private readonly reopenMs: number,
    private readonly log: Log,
    private readonly openPort: OpenSdi12Port,
  ) {}

  get isOpen(): boolean {
    return this.port !== undefined;
  }

  /** Opens the port; resolves after the first attempt, whether it worked or not. */
  start(): Promise<void> {
    return this.open();
  }

  private open(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    let port: Sdi12Port;
    try {
      port = this.openPort({ path: this.path, baudRate: this.baudRate });
    } catch (e) {
      this.unavailable(errMessage(e));
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      port.on('error', (err) => this.lost(port, err.message));
      port.open((err) => {
        if (err) {
          this.release(port);
          this.unavailable(err.message);
        } else if (this.stopped) {
          this.release(port);
          port.close(() => resolve());
          return;
        } else {
          this.port = port;
          if (this.everOpened) this.reopens++;
          this.everOpened = true;
          this.partial = '';
          this.lines.length = 0;
          port.on('data', (chunk) => this.data(port, chunk));
          port.on('close', () => this.lost(port, 'port closed'));
          this.log.info(
            { port: this.path },
            this.outageSince ? 'SDI-12 adapter open again' : 'SDI-12 adapter open',
          );
          this.outageSince = undefined;
        }
        resolve();
      });
    });
  }

  private unavailable(reason: string): void {
    this.lastError = reason;
    if (this.outageSince === undefined) {
      this.outageSince = Date.now();
      this.log.warn(
        { port: this.path, err: reason, retryMs: this.reopenMs },
        'SDI-12 adapter unavailable; retrying',
      );
    } else this.log.debug({ port: this.path, err: reason }, 'SDI-12 adapter still unavailable');
    if (this.stopped) return;
    clearTimeout(this.retry);
    this.retry = setTimeout(() => void this.open(), this.reopenMs);
  }

  private lost(port: Sdi12Port, reason: string): void {
    if (port !== this.port) return;
    this.port = undefined;
    this.release(port);
    if (port.isOpen)
      port.close((e) => e && this.log.debug({ port: this.path, err: e.message }, 'closing failed'));
    this.settle(undefined);
    this.unavailable(reason);
  }

  private data(port: Sdi12Port, chunk: Buffer): void {
    if (port !== this.port) return;
    this.partial += chunk.toString('latin1');
    let nl = this.partial.indexOf('\n');
    while (nl >= 0) {
      const line = this.partial.slice(0, nl).replace(/\r$/, '');
      this.partial = this.partial.slice(nl + 1);
      this.lines.push(line);
      nl = this.partial.indexOf('\n');
    }
    if (this.partial.length > MAX_LINE) this.partial = '';
    if (this.waiter && this.lines.length) this.settle(this.lines.shift());
  }

  private settle(line: string | undefined): void {
    const w = this.waiter;
    this.waiter = undefined;
    w?.(line);
  }

  /** The next line from the adapter, or undefined when none comes within `timeoutMs` (or the port is lost). */
  nextLine(timeoutMs: number): Promise<string | undefined> {
    if (this.lines.length) return Promise.resolve(this.lines.shift());
    if (!this.port) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.settle(undefined), timeoutMs);
      this.waiter = (line) => {
        clearTimeout(timer);
        resolve(line);
      };
    });
  }

  /** Sends a command (what is left of earlier answers is dropped first); its answer, or undefined. */
  async command(cmd: string, timeoutMs: number): Promise<string | undefined> {
    const port = this.port;
    if (!port) return undefined;
    this.lines.length = 0;
    const written = await new Promise<boolean>((resolve) =>
      port.write(cmd, (err) => {
        if (err) {
          this.lastError = err.message;
          this.log.warn({ port: this.path, err: err.message }, 'SDI-12 command not written');
        }
        resolve(!err);
      }),
    );
    return written ? this.nextLine(timeoutMs) : undefined;
  }

  /** Drops our listeners but keeps one for errors, so a late error cannot crash the process. */
  private release(port: Sdi12Port): void {
    port.removeAllListeners();
    port.on('error', (e) =>
      this.log.debug({ port: this.path, err: e.message }, 'error from a released SDI-12 port'),
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    const port = this.port;
    this.port = undefined;
    this.settle(undefined);
    if (!port) return;
    this.release(port);
    if (port.isOpen) await new Promise<void>((r) => port.close(() => r()));
  }
}
