/**
 * Whether the local store takes writes. It turns read-only at once when a commit fails for want of space
 * (or of a writable disk), and while the data directory has less than `minFreeBytes` free; it turns
 * writable again by itself once space returns. While read-only the ingest stage refuses what it would
 * have to store (a QoS 1 publish gets no acknowledgement), the API refuses writes, health is red with the
 * reason, and reads go on.
 */
import { statfsSync } from 'node:fs';
import type { Counter, Registry } from '../metrics.ts';
import type { ComponentHealth, Log } from '../pipeline.ts';

/** SQLite and file-system errors that mean the disk, not the data, is the problem. */
const DISK_ERROR = /^(SQLITE_FULL|SQLITE_IOERR|SQLITE_READONLY|SQLITE_CANTOPEN|ENOSPC|EROFS|EIO|EDQUOT)/;

/** Whether an error is the disk's (full, read-only, failing) rather than the data's. */
export function isDiskError(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  return typeof code === 'string' && DISK_ERROR.test(code);
}

export interface WriteGateOptions {
  dataDir: string;
  minFreeBytes: number;
  log: Log;
  /** How often free space is checked (default 1000 ms). */
  checkMs?: number;
  now?: () => number;
  /** Where the failed and the put-off writes are counted, by the path that wrote. */
  metrics?: Registry;
}

/** Runs a write of the path `where`, put off while the store is read-only (see WriteGate.write). */
export type GuardedWrite = <T>(where: string, fn: () => T) => T | undefined;

const MB = 1024 * 1024;
const mb = (n: number) => `${Math.round((n / MB) * 10) / 10} MB`;

export class WriteGate {
  private reason: string | undefined;
  private held: string | undefined;
  private spaceBack: (() => void) | undefined;
  private cause: 'space' | 'error' | undefined;
  private retryAt = 0;
  private backoffMs = 2000;
  private timer: NodeJS.Timeout | undefined;
  private free: number | undefined;
  private readonly now: () => number;
  private listeners: Array<(readOnly: string | undefined) => void> = [];
  private readonly failures: Counter | undefined;
  private readonly deferred: Counter | undefined;

  constructor(private readonly o: WriteGateOptions) {
    this.now = o.now ?? Date.now;
    this.failures = o.metrics?.counter(
      'gateway_store_write_failures_total',
      'Writes to the local store that failed on the disk (full, read-only, I/O error), by the path that wrote; each turns the store read-only',
    );
    this.deferred = o.metrics?.counter(
      'gateway_store_writes_deferred_total',
      'Housekeeping writes (checkpoints, device states, retention) put off while the store was read-only, by path',
    );
  }

  /**
   * A write of a timer or a housekeeping path: put off (undefined) while the store is read-only, and a
   * disk fault turns the store read-only (undefined) instead of being thrown, so that no timer ends the
   * process on a full or failing disk. Any other error is thrown.
   */
  readonly write: GuardedWrite = (where, fn) => {
    if (this.reason !== undefined) {
      this.deferred?.inc({ where });
      return undefined;
    }
    try {
      return fn();
    } catch (e) {
      if (!this.failed(e, where)) throw e;
      return undefined;
    }
  };

  /** Why the store is read-only, or undefined while it takes writes. */
  get readOnly(): string | undefined {
    return this.reason;
  }

  /** Called with the new reason (or undefined) whenever the store turns read-only or writable. */
  onChange(fn: (readOnly: string | undefined) => void): void {
    this.listeners.push(fn);
  }

  /** Checks free space now and then every `checkMs` until stop(). */
  start(): void {
    this.check();
    this.timer ??= setInterval(() => this.check(), this.o.checkMs ?? 1000);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Read-only for good, for a reason found elsewhere (the store could not be opened at all). */
  hold(reason: string): void {
    this.held = reason;
    this.close('error', reason);
  }

  /** While held: `fn` is called once, when the data directory has its minimum free space again. */
  onSpaceBack(fn: () => void): void {
    this.spaceBack = fn;
  }

  /**
   * A write failed: when the disk is the cause, the store turns read-only at once (counted under
   * `where`, the path that wrote). Returns whether it did.
   */
  failed(e: unknown, where = 'readings'): boolean {
    if (!isDiskError(e)) return false;
    this.failures?.inc({ where });
    if (this.reason === undefined)
      this.o.log.error({ err: (e as Error).message, where }, 'a write to the local store failed on the disk');
    if (this.reason === undefined) this.backoffMs = 2000;
    else this.backoffMs = Math.min(this.backoffMs * 2, 60_000);
    this.retryAt = this.now() + this.backoffMs;
    this.close('error', `store writes fail: ${(e as Error).message}`);
    return true;
  }

  /** A write succeeded. */
  succeeded(): void {
    if (this.cause === 'error') this.open();
  }

  /** Free bytes in the data directory, as last measured. */
  freeBytes(): number | undefined {
    return this.free;
  }

  health(): ComponentHealth {
    const free = this.free === undefined ? '' : `, ${mb(this.free)} free`;
    return this.reason === undefined
      ? { name: 'store', ok: true, detail: `SQLite (WAL), writable${free}` }
      : { name: 'store', ok: false, detail: `read-only: ${this.reason}`, readOnly: true };
  }

  /** Measures free space; turns read-only below the minimum and writable again above it. */
  check(): void {
    try {
      const st = statfsSync(this.o.dataDir);
      this.free = Number(st.bavail) * Number(st.bsize);
    } catch (e) {
      this.o.log.warn({ err: (e as Error).message }, 'cannot measure free space in the data directory');
      return;
    }
    const min = this.o.minFreeBytes;
    if (this.held !== undefined && this.free >= min && this.spaceBack) {
      const fn = this.spaceBack;
      this.spaceBack = undefined;
      fn();
    }
    if (this.free < min && this.held === undefined) {
      this.close(
        'space',
        `disk full: ${mb(this.free)} free in the data directory, below storage.minFreeMb (${mb(min)})`,
      );
      return;
    }
    if (this.cause === 'space' || (this.cause === 'error' && this.now() >= this.retryAt)) this.open();
  }

  private close(cause: 'space' | 'error', reason: string): void {
    const was = this.reason;
    this.cause = cause;
    this.reason = reason;
    if (was === undefined) {
      this.o.log.error({ reason }, 'local store read-only: new data is refused until it takes writes again');
      for (const fn of this.listeners) fn(reason);
    }
  }

  private open(): void {
    if (this.reason === undefined || this.held !== undefined) return;
    this.o.log.info({ was: this.reason }, 'local store writable again: taking new data');
    this.reason = undefined;
    this.cause = undefined;
    for (const fn of this.listeners) fn(undefined);
  }
}
