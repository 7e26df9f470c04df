import { stat } from 'node:fs/promises';
import type { Counter, Gauge, Registry } from '../../metrics.ts';
import type { ComponentHealth, IngestSink, Input, Log } from '../../pipeline.ts';
import { LineSplitter } from './lineSplitter.ts';
import { type OpenPort, openSerialPort, type SerialPortLike } from './port.ts';

export interface SerialPortConfig {
  /** Device path, e.g. /dev/ttyUSB0 or a /dev/serial/by-id/... link. Ports are opened by path. */
  path: string;
  baudRate: number;
  /** How often a missing or lost port is retried, and how often an open port's path is checked. */
  reopenMs: number;
}

export interface SerialInputOptions {
  ports: SerialPortConfig[];
  /**
   * Longest line handed on intact, in bytes, without the `\n` (and a trailing `\r`). A longer line is
   * cut to its first `maxLineBytes + 1` bytes, handed on so the sink rejects and counts it as
   * oversize, and the rest of it up to the next `\n` is discarded.
   */
  maxLineBytes: number;
  metrics: Registry;
  log: Log;
  now?: () => number;
  /** Port factory; defaults to serialport's SerialPort (opened by path, never by listing). */
  openPort?: OpenPort;
  /** Lines waiting for the sink, per port, before the port is paused until half of them are taken. Default 256. */
  maxQueuedLines?: number;
  /** How long stop() waits for lines already read to reach the sink before dropping them. Default 5000 ms. */
  stopDrainMs?: number;
}

interface Metrics {
  lines: Counter;
  reopens: Counter;
  open: Gauge;
  overlong: Counter;
  ingestErrors: Counter;
}

type State = 'idle' | 'opening' | 'open' | 'waiting' | 'stopped';

interface Queued {
  payload: Buffer;
  receivedAt: number;
}

const errMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** One configured port: opens it, reads lines, hands them to the sink in order, and reopens it when lost. */
class PortReader {
  readonly path: string;
  private readonly labels: { port: string };
  private state: State = 'idle';
  private port: SerialPortLike | undefined;
  private readonly splitter: LineSplitter;
  private sink: IngestSink | undefined;

  private readonly queue: Queued[] = [];
  private paused = false;
  private pumping: Promise<void> | undefined;

  private retryTimer: NodeJS.Timeout | undefined;
  private watchTimer: NodeJS.Timeout | undefined;
  private watching = false;
  private identity: string | undefined;
  private opening: Promise<void> | undefined;

  private everOpened = false;
  private outageSince: number | undefined;
  private linesRead = 0;
  private reopens = 0;
  private overlong = 0;
  private lastError: string | undefined;

  constructor(
    private readonly cfg: SerialPortConfig,
    maxLineBytes: number,
    private readonly maxQueued: number,
    private readonly m: Metrics,
    private readonly log: Log,
    private readonly now: () => number,
    private readonly openPort: OpenPort,
  ) {
    this.path = cfg.path;
    this.labels = { port: cfg.path };
    this.splitter = new LineSplitter(maxLineBytes);
    m.open.set(0, this.labels);
    m.lines.inc(this.labels, 0);
    m.reopens.inc(this.labels, 0);
    m.overlong.inc(this.labels, 0);
    m.ingestErrors.inc(this.labels, 0);
  }

  /** Starts reading; resolves after the first open attempt, whether it succeeded or not. */
  start(sink: IngestSink): Promise<void> {
    this.sink = sink;
    return this.attemptOpen();
  }

  private attemptOpen(): Promise<void> {
    if (this.state === 'stopped') return Promise.resolve();
    this.state = 'opening';
    let port: SerialPortLike;
    try {
      port = this.openPort({ path: this.cfg.path, baudRate: this.cfg.baudRate });
    } catch (e) {
      this.openFailed(errMessage(e));
      return Promise.resolve();
    }
    const opening = new Promise<void>((resolve) => {
      port.on('error', (err) => this.onError(port, err));
      port.open((err) => {
        if (err) {
          this.detach(port);
          if (this.state !== 'stopped') this.openFailed(err.message);
        } else if (this.state === 'stopped') {
          this.detach(port);
          this.closeQuietly(port).then(resolve, resolve);
          return;
        } else {
          this.opened(port);
        }
        resolve();
      });
    }).finally(() => {
      if (this.opening === opening) this.opening = undefined;
    });
    this.opening = opening;
    return opening;
  }

  private opened(port: SerialPortLike): void {
    this.port = port;
    this.state = 'open';
    this.paused = false;
    this.splitter.reset();
    port.on('data', (chunk) => this.onData(port, chunk));
    port.on('close', (err) => this.onClose(port, err));
    this.m.open.set(1, this.labels);
    if (this.everOpened) {
      this.reopens++;
      this.m.reopens.inc(this.labels);
    }
    this.everOpened = true;
    if (this.outageSince !== undefined) {
      this.log.info(
        { port: this.path, unavailableMs: this.now() - this.outageSince, reopens: this.reopens },
        'serial port open again',
      );
      this.outageSince = undefined;
    } else {
      this.log.info({ port: this.path, baudRate: this.cfg.baudRate }, 'serial port open');
    }
    // Serve lines still queued from before an outage, and pause the new port if they are many.
    if (this.queue.length >= this.maxQueued) this.pause();
    this.identity = undefined;
    this.recordIdentity(port);
    this.watchTimer = setInterval(() => this.checkPath(port), this.cfg.reopenMs);
  }

  private openFailed(reason: string): void {
    this.lastError = reason;
    this.beginOutage(reason);
    this.scheduleRetry();
  }

  /** Logs once per outage: the first failure is a warning, retries that fail again are debug only. */
  private beginOutage(reason: string): void {
    this.m.open.set(0, this.labels);
    if (this.outageSince === undefined) {
      this.outageSince = this.now();
      this.log.warn(
        { port: this.path, err: reason, retryMs: this.cfg.reopenMs },
        this.everOpened
          ? 'serial port lost; reopening when it comes back'
          : 'serial port unavailable; retrying',
      );
    } else {
      this.log.debug({ port: this.path, err: reason }, 'serial port still unavailable');
    }
  }

  private scheduleRetry(): void {
    if (this.state === 'stopped') return;
    this.state = 'waiting';
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.attemptOpen();
    }, this.cfg.reopenMs);
  }

  private onData(port: SerialPortLike, chunk: Buffer): void {
    if (port !== this.port) return;
    const receivedAt = this.now();
    for (const line of this.splitter.push(chunk)) this.enqueue(line.bytes, line.truncated, receivedAt);
    if (this.queue.length >= this.maxQueued) this.pause();
    this.pump();
  }

  private enqueue(payload: Buffer, truncated: boolean, receivedAt: number): void {
    this.linesRead++;
    this.m.lines.inc(this.labels);
    if (truncated) {
      this.overlong++;
      this.m.overlong.inc(this.labels);
      this.log.debug(
        { port: this.path, keptBytes: payload.length },
        'overlong serial line truncated; rest discarded',
      );
    }
    this.queue.push({ payload, receivedAt });
  }

  private pause(): void {
    if (this.paused || !this.port) return;
    this.paused = true;
    this.port.pause();
  }

  private maybeResume(): void {
    if (!this.paused || this.queue.length > this.maxQueued / 2) return;
    this.paused = false;
    if (this.port && this.state === 'open') this.port.resume();
  }

  /** Hands queued lines to the sink one at a time, in order; one pump per port at a time. */
  private pump(): void {
    if (this.pumping || !this.sink) return;
    const sink = this.sink;
    this.pumping = (async () => {
      while (this.queue.length > 0) {
        const item = this.queue.shift()!;
        try {
          await sink.ingest({
            transport: 'serial',
            topic: `serial:${this.path}`,
            payload: item.payload,
            receivedAt: item.receivedAt,
          });
        } catch (e) {
          this.m.ingestErrors.inc(this.labels);
          this.log.error({ port: this.path, err: errMessage(e) }, 'sink failed to ingest a serial line');
        }
        this.maybeResume();
      }
    })().finally(() => {
      this.pumping = undefined;
    });
  }

  private onClose(port: SerialPortLike, err: Error | null | undefined): void {
    if (port !== this.port) return;
    this.lost(err ? err.message : 'port closed');
  }

  private onError(port: SerialPortLike, err: Error): void {
    this.lastError = err.message;
    if (port !== this.port) {
      this.log.debug({ port: this.path, err: err.message }, 'serial port error');
      return;
    }
    if (!port.isOpen) this.lost(err.message);
    else this.log.warn({ port: this.path, err: err.message }, 'serial port error');
  }

  /** The open port went away: hand on any unfinished line, release the port and start retrying. */
  private lost(reason: string): void {
    if (this.state !== 'open' || !this.port) return;
    const port = this.port;
    this.port = undefined;
    this.lastError = reason;
    clearInterval(this.watchTimer);
    this.watchTimer = undefined;
    this.detach(port);
    if (port.isOpen) void this.closeQuietly(port);
    const rest = this.splitter.flush();
    if (rest) {
      this.enqueue(rest.bytes, rest.truncated, this.now());
      this.pump();
    }
    this.paused = false;
    this.beginOutage(reason);
    this.scheduleRetry();
  }

  /**
   * A pulled USB adapter normally makes reads fail; as a second line of defence the path is checked
   * while the port is open, so a path that vanished or now names another device also counts as lost.
   */
  private recordIdentity(port: SerialPortLike): void {
    stat(this.path).then(
      (s) => {
        if (port === this.port) this.identity = `${s.dev}:${s.ino}:${s.rdev}`;
      },
      (e: unknown) => this.log.debug({ port: this.path, err: errMessage(e) }, 'cannot stat serial port path'),
    );
  }

  private checkPath(port: SerialPortLike): void {
    if (this.watching || port !== this.port) return;
    this.watching = true;
    stat(this.path)
      .then(
        (s) => {
          const id = `${s.dev}:${s.ino}:${s.rdev}`;
          if (this.identity === undefined) this.identity = id;
          else if (id !== this.identity && port === this.port)
            this.lost('device path now names a different device');
        },
        (e: unknown) => {
          if (port === this.port) this.lost(`device path unavailable: ${errMessage(e)}`);
        },
      )
      .finally(() => {
        this.watching = false;
      });
  }

  /** Drops our listeners but keeps one for errors, so a late error from a discarded port cannot crash the process. */
  private detach(port: SerialPortLike): void {
    port.removeAllListeners();
    port.on('error', (err) =>
      this.log.debug({ port: this.path, err: err.message }, 'error from a released serial port'),
    );
  }

  private closeQuietly(port: SerialPortLike): Promise<void> {
    return new Promise((resolve) => {
      if (!port.isOpen) {
        resolve();
        return;
      }
      port.close((err) => {
        if (err) this.log.debug({ port: this.path, err: err.message }, 'closing serial port failed');
        resolve();
      });
    });
  }

  /**
   * Closes the port and cancels timers. Lines already read are still handed to the sink, waiting at
   * most `drainMs`; what is left after that is dropped with a warning. An unfinished line is dropped.
   */
  async stop(drainMs: number): Promise<void> {
    if (this.state === 'stopped') return;
    this.state = 'stopped';
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    clearInterval(this.watchTimer);
    this.watchTimer = undefined;
    if (this.opening) await this.opening;
    const port = this.port;
    this.port = undefined;
    if (port) {
      this.detach(port);
      await this.closeQuietly(port);
    }
    this.m.open.set(0, this.labels);
    if (this.splitter.pendingBytes > 0)
      this.log.debug(
        { port: this.path, bytes: this.splitter.pendingBytes },
        'unfinished serial line dropped',
      );
    this.splitter.reset();
    if (this.pumping) {
      let timer: NodeJS.Timeout | undefined;
      const drained = await Promise.race([
        this.pumping.then(() => true),
        new Promise<boolean>((r) => {
          timer = setTimeout(() => r(false), drainMs);
        }),
      ]);
      clearTimeout(timer);
      if (!drained) {
        const dropped = this.queue.length;
        this.queue.length = 0;
        this.log.warn({ port: this.path, dropped }, 'sink too slow at shutdown; queued serial lines dropped');
      }
    }
  }

  health(): ComponentHealth {
    const open = this.state === 'open';
    let detail: string;
    switch (this.state) {
      case 'idle':
        detail = 'not started';
        break;
      case 'opening':
        detail = 'opening';
        break;
      case 'open':
        detail = this.paused ? 'open; paused while the sink catches up' : 'open';
        break;
      case 'waiting':
        detail = `unavailable; retrying every ${this.cfg.reopenMs} ms`;
        break;
      case 'stopped':
        detail = 'stopped';
        break;
    }
    return {
      name: `serial:${this.path}`,
      ok: open,
      detail,
      linesRead: this.linesRead,
      reopens: this.reopens,
      lastError: this.lastError ?? null,
      overlongLines: this.overlong,
      queued: this.queue.length,
    };
  }
}

/**
 * Reads newline-terminated frames from serial ports and hands each line, undecoded, to the sink as
 * `{ transport: 'serial', topic: 'serial:<path>', payload: <Buffer of the line> }`. Decoding, the CRC
 * suffix and validation are the sink's. Ports that are missing or lost are retried every `reopenMs`.
 */
export class SerialInput implements Input {
  readonly name = 'serial';
  private readonly readers: PortReader[];
  private readonly stopDrainMs: number;
  private started = false;

  constructor(opts: SerialInputOptions) {
    const now = opts.now ?? Date.now;
    const openPort = opts.openPort ?? openSerialPort;
    const maxQueued = Math.max(2, opts.maxQueuedLines ?? 256);
    this.stopDrainMs = opts.stopDrainMs ?? 5000;
    const m: Metrics = {
      lines: opts.metrics.counter('gateway_serial_lines_total', 'Lines read from serial ports'),
      reopens: opts.metrics.counter(
        'gateway_serial_reopens_total',
        'Times a serial port was opened again after it was lost',
      ),
      open: opts.metrics.gauge('gateway_serial_port_open', 'Whether a serial port is open (1) or not (0)'),
      overlong: opts.metrics.counter(
        'gateway_serial_overlong_lines_total',
        'Serial lines longer than the limit, truncated before the sink rejected them',
      ),
      ingestErrors: opts.metrics.counter(
        'gateway_serial_ingest_errors_total',
        'Serial lines the sink failed on with an error (not a rejection)',
      ),
    };
    const seen = new Set<string>();
    for (const p of opts.ports) {
      if (seen.has(p.path)) throw new Error(`serial port ${p.path} is configured twice`);
      seen.add(p.path);
    }
    this.readers = opts.ports.map(
      (p) => new PortReader(p, opts.maxLineBytes, maxQueued, m, opts.log, now, openPort),
    );
  }

  /** Opens every port. A port that cannot be opened is not an error: it is reported in health and retried. */
  async start(sink: IngestSink): Promise<void> {
    if (this.started) throw new Error('serial input already started');
    this.started = true;
    await Promise.all(this.readers.map((r) => r.start(sink)));
  }

  async stop(): Promise<void> {
    await Promise.all(this.readers.map((r) => r.stop(this.stopDrainMs)));
  }

  health(): ComponentHealth[] {
    return this.readers.map((r) => r.health());
  }
}
