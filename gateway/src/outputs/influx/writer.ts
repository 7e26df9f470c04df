/**
 * Drains a queue of lines (an InfluxSource: the stored readings and alert changes after the writer's
 * cursors, or an InfluxOutbox) into InfluxDB: in order, in batches, with retries that never reorder
 * and a bisection that isolates bad lines into the dead-letter table.
 *
 * - A batch is the first `batchSize` rows of the source. A full batch is sent as soon as it exists
 *   (notify() wakes the loop); a partial one once per `flushIntervalMs`.
 * - Success: the rows are settled. Retryable failure: the loop backs off (exponential with jitter,
 *   or the server's Retry-After) and retries from the head of the outbox, so the same rows go first
 *   and nothing later overtakes them. Configuration failures (auth, missing database) back off for
 *   `configBackoffMs` and show in health as errors; no data is dropped for them.
 * - Permanent failure: the batch is split in halves, each written on its own; a single line that still
 *   fails permanently goes to the dead-letter table with the server's reason. A bad line is never
 *   retried in a loop. Re-sending the good lines of a batch the server partly stored is harmless
 *   (identical points overwrite themselves).
 */
import { performance } from 'node:perf_hooks';
import type { Counter, Histogram, Registry } from '../../metrics.ts';
import type { ComponentHealth, Log, Output } from '../../pipeline.ts';
import {
  classifyTransportError,
  PermanentWriteError,
  RetryableWriteError,
  type WriteError,
} from './errors.ts';
import type { InfluxSource, SourceRow, WriteClient } from './source.ts';

export interface InfluxWriterOptions {
  source: InfluxSource;
  client: WriteClient;
  batchSize: number;
  flushIntervalMs: number;
  metrics: Registry;
  log: Log;
  /** Wall clock for health and ages (epoch ms). */
  now?: () => number;
  /** First retry delay; doubles per consecutive failure up to maxBackoffMs. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** Delay before retrying after a configuration error (401, 403, 404, ...). */
  configBackoffMs?: number;
  /** Upper bound on a server's Retry-After. */
  maxRetryAfterMs?: number;
  /** For tests: the jitter source, in [0, 1). */
  random?: () => number;
}

interface LastError {
  kind: 'retryable' | 'permanent' | 'store';
  reason?: string;
  status?: number;
  message: string;
  at: number;
}

type State = 'new' | 'idle' | 'writing' | 'backoff' | 'stopped';

export class InfluxWriter implements Output {
  readonly name = 'influxdb';
  private readonly source: InfluxSource;
  private readonly client: WriteClient;
  private readonly batchSize: number;
  private readonly flushIntervalMs: number;
  private readonly log: Log;
  private readonly now: () => number;
  private readonly minBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly configBackoffMs: number;
  private readonly maxRetryAfterMs: number;
  private readonly random: () => number;

  private readonly pointsWritten: Counter;
  private readonly writeSeconds: Histogram;
  private readonly writeErrors: Counter;
  private readonly deadLettered: Counter;

  private state: State = 'new';
  private stopping = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private wakeOnNotify = false;
  private lastPartialFlush = Number.NEGATIVE_INFINITY;
  private failures = 0;
  private failing = false;
  private lastError: LastError | undefined;
  private lastSuccessAt: number | undefined;
  private nextRetryAt: number | undefined;

  constructor(opts: InfluxWriterOptions) {
    if (!Number.isInteger(opts.batchSize) || opts.batchSize < 1) throw new Error('batchSize must be >= 1');
    this.source = opts.source;
    this.client = opts.client;
    this.batchSize = opts.batchSize;
    this.flushIntervalMs = Math.max(1, opts.flushIntervalMs);
    this.log = opts.log;
    this.now = opts.now ?? Date.now;
    this.minBackoffMs = opts.minBackoffMs ?? 200;
    this.maxBackoffMs = Math.max(this.minBackoffMs, opts.maxBackoffMs ?? 30_000);
    this.configBackoffMs = opts.configBackoffMs ?? 60_000;
    this.maxRetryAfterMs = opts.maxRetryAfterMs ?? 300_000;
    this.random = opts.random ?? Math.random;

    const m = opts.metrics;
    m.gauge('gateway_influx_backlog', 'Lines waiting in the InfluxDB outbox').collect((set) => {
      const depth = this.readStore(() => this.source.depth());
      if (depth !== undefined) set(depth);
    });
    m.gauge(
      'gateway_influx_backlog_oldest_seconds',
      'Age of the oldest line waiting in the InfluxDB outbox (0 when empty)',
    ).collect((set) => {
      const t = this.readStore(() => this.source.oldestEnqueuedAt() ?? null);
      if (t === undefined) return;
      set(t === null ? 0 : Math.max(0, (this.now() - t) / 1000));
    });
    this.pointsWritten = m.counter('gateway_influx_points_written_total', 'Lines written to InfluxDB');
    this.writeSeconds = m.histogram('gateway_influx_write_seconds', 'Duration of InfluxDB write requests');
    this.writeErrors = m.counter(
      'gateway_influx_write_errors_total',
      'Failed InfluxDB write requests by kind',
    );
    this.writeErrors.inc({ kind: 'retryable' }, 0);
    this.writeErrors.inc({ kind: 'permanent' }, 0);
    this.deadLettered = m.counter(
      'gateway_influx_dead_letter_total',
      'Lines InfluxDB rejected for good, moved to the dead-letter table',
    );
  }

  async start(): Promise<void> {
    if (this.loop) return;
    this.stopping = false;
    this.state = 'idle';
    this.loop = this.run();
  }

  /**
   * Finishes the write in flight (if any) and returns; rows not yet written stay in the outbox for
   * the next start.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    const loop = this.loop;
    this.loop = undefined;
    if (loop) await loop;
    this.state = 'stopped';
  }

  /** Called after each commit that enqueued lines: wakes the loop early once a full batch is waiting. */
  notify(): void {
    if (!this.wake || !this.wakeOnNotify) return;
    if (this.source.depth() >= this.batchSize) this.wake();
  }

  health(): ComponentHealth {
    const now = this.now();
    let backlog: number;
    let oldest: number | undefined;
    let deadLetters: number;
    try {
      backlog = this.source.depth();
      oldest = this.source.oldestEnqueuedAt();
      deadLetters = this.source.deadLetterCount();
    } catch (e) {
      return {
        name: this.name,
        ok: false,
        detail: `local store unavailable: ${e instanceof Error ? e.message : String(e)}`,
        state: this.state,
      };
    }
    const err = this.lastError;
    let detail: string | undefined;
    if (this.failing && err) {
      detail =
        err.kind === 'store'
          ? `local store error, retrying: ${err.message}`
          : err.reason === 'config'
            ? `InfluxDB rejects the configuration (${err.message}); check url, token, org, bucket or db`
            : `InfluxDB write failing, retrying: ${err.message}`;
    } else if (deadLetters > 0)
      detail = `${deadLetters} line(s) rejected by InfluxDB, see the dead-letter table`;
    return {
      name: this.name,
      ok: !this.failing,
      ...(detail !== undefined ? { detail } : {}),
      state: this.state,
      backlog,
      oldestAgeMs: oldest === undefined ? 0 : Math.max(0, now - oldest),
      lastError: err
        ? {
            kind: err.kind,
            reason: err.reason,
            status: err.status,
            message: err.message,
            at: new Date(err.at).toISOString(),
          }
        : null,
      lastSuccessAt: this.lastSuccessAt === undefined ? null : new Date(this.lastSuccessAt).toISOString(),
      consecutiveFailures: this.failures,
      nextRetryAt: this.nextRetryAt === undefined ? null : new Date(this.nextRetryAt).toISOString(),
      deadLetters,
    };
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      let retry: RetryableWriteError | undefined;
      try {
        const depth = this.source.depth();
        const sincePartial = performance.now() - this.lastPartialFlush;
        if (depth === 0 || (depth < this.batchSize && sincePartial < this.flushIntervalMs)) {
          this.state = 'idle';
          const wait = depth === 0 ? this.flushIntervalMs : this.flushIntervalMs - sincePartial;
          await this.sleep(wait, true);
          continue;
        }
        if (depth < this.batchSize) this.lastPartialFlush = performance.now();
        this.state = 'writing';
        retry = await this.writeRows(this.source.peek(this.batchSize));
      } catch (e) {
        // The local store failed (disk full, I/O error): keep the loop alive, report it, back off.
        const message = e instanceof Error ? e.message : String(e);
        this.lastError = { kind: 'store', message, at: this.now() };
        this.failing = true;
        this.log.error({ err: message }, 'influx outbox: store error');
        retry = new RetryableWriteError('server', `local store: ${message}`);
      }
      if (retry) {
        this.failures++;
        const delay = this.backoff(retry);
        this.nextRetryAt = this.now() + delay;
        this.state = 'backoff';
        await this.sleep(delay, false);
        this.nextRetryAt = undefined;
      }
    }
    this.state = 'stopped';
  }

  /** Writes rows; returns the retryable error that stopped it, or undefined when every row is settled. */
  private async writeRows(rows: SourceRow[]): Promise<RetryableWriteError | undefined> {
    if (rows.length === 0) return undefined;
    const lines: string[] = [];
    let points = 0;
    for (const r of rows)
      if (r.line !== '') {
        lines.push(r.line);
        points += r.count ?? 1;
      }
    if (lines.length === 0) {
      this.source.settle(rows);
      return undefined;
    }
    const started = performance.now();
    let failure: WriteError | undefined;
    try {
      await this.client.write(lines);
    } catch (e) {
      failure =
        e instanceof RetryableWriteError || e instanceof PermanentWriteError ? e : classifyTransportError(e);
    }
    this.writeSeconds.observe((performance.now() - started) / 1000);

    if (failure === undefined) {
      this.source.settle(rows);
      this.pointsWritten.inc(undefined, points);
      this.lastSuccessAt = this.now();
      if (this.failing) {
        this.log.info({ backlog: this.source.depth() }, 'influx: writes recovered');
        this.failing = false;
      }
      this.failures = 0;
      return undefined;
    }

    if (failure instanceof RetryableWriteError) {
      this.writeErrors.inc({ kind: 'retryable' });
      const prev = this.lastError;
      this.lastError = {
        kind: 'retryable',
        reason: failure.reason,
        status: failure.status,
        message: failure.message,
        at: this.now(),
      };
      if (!this.failing || prev?.message !== failure.message)
        this.log.warn(
          {
            reason: failure.reason,
            status: failure.status,
            err: failure.serverMessage,
            backlog: this.source.depth(),
          },
          'influx: write failed, will retry',
        );
      this.failing = true;
      return failure;
    }

    this.writeErrors.inc({ kind: 'permanent' });
    // The server answered and judged the data: it is reachable and the configuration works.
    this.failing = false;
    this.failures = 0;
    this.lastError = {
      kind: 'permanent',
      status: failure.status,
      message: failure.message,
      at: this.now(),
    };
    if (rows.length === 1 && (rows[0]!.count ?? 1) > 1 && this.source.split) {
      // A row of several lines: look for the bad one among them.
      const single = this.source.split(rows[0]!);
      if (single.length > 1) return this.writeRows(single);
    }
    if (rows.length === 1) {
      const reason = `${failure.status} ${failure.serverMessage}`;
      this.source.deadLetter(rows, reason, this.now());
      this.deadLettered.inc();
      this.log.warn(
        { outboxId: rows[0]!.id, status: failure.status, err: failure.serverMessage },
        'influx: line dead-lettered',
      );
      return undefined;
    }
    const mid = Math.ceil(rows.length / 2);
    const left = await this.writeRows(rows.slice(0, mid));
    if (left || this.stopping) return left;
    return this.writeRows(rows.slice(mid));
  }

  /** A read for a metrics scrape: a closed or failing store leaves the gauge at its last value. */
  private readStore<T>(read: () => T): T | undefined {
    try {
      return read();
    } catch (e) {
      this.log.debug(
        { err: e instanceof Error ? e.message : String(e) },
        'influx outbox: metrics read failed',
      );
      return undefined;
    }
  }

  private backoff(err: RetryableWriteError): number {
    if (err.retryAfterMs !== undefined) return Math.min(err.retryAfterMs, this.maxRetryAfterMs);
    const exp = Math.min(this.maxBackoffMs, this.minBackoffMs * 2 ** Math.min(30, this.failures - 1));
    const jittered = exp / 2 + (this.random() * exp) / 2;
    if (err.reason === 'config') return Math.max(jittered, this.configBackoffMs);
    return jittered;
  }

  private sleep(ms: number, wakeOnNotify: boolean): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.wake === done) {
          this.wake = undefined;
          this.wakeOnNotify = false;
        }
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      this.wake = done;
      this.wakeOnNotify = wakeOnNotify;
    });
  }
}
