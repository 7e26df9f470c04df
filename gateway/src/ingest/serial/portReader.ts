/**
 * One serial port's lifecycle: opened by path, read in lines (lineSplitter.ts) that are queued for the
 * sink (lineQueue.ts), watched while open (a pulled adapter, or a path that now names another device,
 * counts as lost), and reopened every `reopenMs` while missing. Each outage is logged once.
 */
import { stat } from 'node:fs/promises';
import type { Counter, Gauge } from '../../metrics.ts';
import type { ComponentHealth, IngestSink, Log } from '../../pipeline.ts';
import { LineQueue } from './lineQueue.ts';
import { LineSplitter } from './lineSplitter.ts';
import { errMessage, type OpenPort, type SerialPortConfig, type SerialPortLike } from './port.ts';

export interface SerialMetrics {
  lines: Counter;
  reopens: Counter;
  open: Gauge;
  overlong: Counter;
  ingestErrors: Counter;
}

type State = 'idle' | 'opening' | 'open' | 'waiting' | 'stopped';

/** One configured port: opens it, reads lines, hands them to the sink in order, and reopens it when lost. */
export class PortReader {
  readonly path: string;
  private readonly labels: { port: string };
  private state: State = 'idle';
  private port: SerialPortLike | undefined;
  private readonly splitter: LineSplitter;
  private readonly lines: LineQueue;

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
    maxQueued: number,
    private readonly m: SerialMetrics,
    private readonly log: Log,
    private readonly now: () => number,
    private readonly openPort: OpenPort,
  ) {
    this.path = cfg.path;
    this.labels = { port: cfg.path };
    this.splitter = new LineSplitter(maxLineBytes);
    this.lines = new LineQueue(cfg.path, maxQueued, m.ingestErrors, log);
    m.open.set(0, this.labels);
    m.lines.inc(this.labels, 0);
    m.reopens.inc(this.labels, 0);
    m.overlong.inc(this.labels, 0);
    m.ingestErrors.inc(this.labels, 0);
  }

  /** Starts reading; resolves after the first open attempt, whether it succeeded or not. */
  start(sink: IngestSink): Promise<void> {
    this.lines.deliverTo(sink);
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
    this.lines.attach(port);
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
    this.lines.flow();
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
    this.lines.push(payload, receivedAt);
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
    this.lines.detach();
    const rest = this.splitter.flush();
    if (rest) {
      this.enqueue(rest.bytes, rest.truncated, this.now());
      this.lines.flow();
    }
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
    this.lines.halt();
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    clearInterval(this.watchTimer);
    this.watchTimer = undefined;
    if (this.opening) await this.opening;
    const port = this.port;
    this.port = undefined;
    this.lines.detach();
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
    await this.lines.drain(drainMs);
  }

  health(): ComponentHealth {
    const open = this.state === 'open';
    let detail: string;
    switch (this.state) {
      case 'idle':
        detail = 'not started';
        break;
      case 'opening':
        // A retry during an outage is still the outage: the health does not flicker at every attempt.
        detail =
          this.outageSince === undefined ? 'opening' : `unavailable; retrying every ${this.cfg.reopenMs} ms`;
        break;
      case 'open':
        detail = this.lines.isPaused ? 'open; paused while the sink catches up' : 'open';
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
      queued: this.lines.length,
    };
  }
}
