/**
 * InfluxDB 2 write API client (InfluxDB 2.x, 3.x, Cloud, and compatible servers), through
 * @influxdata/influxdb-client.
 *
 * The library's WriteApi batches and retries on its own; here the outbox and InfluxWriter own
 * batching, ordering and retries, so each write() uses a fresh WriteApi configured to send exactly the
 * given lines in one request and to report the outcome of that request, and nothing else:
 *   - maxRetries 0: a failed batch is never put into the library's retry buffer (RetryBuffer is only
 *     fed when retryAttempts > 0), so no line is sent twice or behind a later batch;
 *   - batchSize lines+1 and maxBatchBytes Infinity: WriteBuffer.add() never triggers a background
 *     flush (whose error the library would swallow), so the single flush() below sends everything and
 *     its promise carries the request's error;
 *   - flushInterval 0: no timer-driven sends;
 *   - writeFailed returns the rejected promise itself, so the error reaches flush() unchanged and the
 *     library logs nothing on its own.
 */
import { HttpError, InfluxDB, type WriteApi } from '@influxdata/influxdb-client';
import { classifyHttpFailure, classifyTransportError, serverMessage, type WriteError } from './errors.ts';
import type { WriteClient } from './source.ts';

export interface InfluxV2Options {
  url: string;
  token?: string;
  org: string;
  bucket: string;
  /** Socket timeout, ms. */
  timeoutMs?: number;
  /** Bodies larger than this many bytes are gzipped. */
  gzipThreshold?: number;
}

function header(headers: Record<string, string | string[] | undefined> | undefined, name: string) {
  const v = headers?.[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Maps what WriteApi.flush() rejects with onto RetryableWriteError / PermanentWriteError. */
export function mapV2Error(e: unknown, now = Date.now()): WriteError {
  if (e instanceof HttpError) {
    const json = e.json as { message?: unknown; error?: unknown } | undefined;
    const fromJson =
      typeof json?.message === 'string' ? json.message : typeof json?.error === 'string' ? json.error : '';
    const msg = fromJson || serverMessage(e.body ?? '') || e.message || e.statusMessage || '';
    const retryAfter = header(e.headers, 'retry-after');
    return classifyHttpFailure(e.statusCode, msg, retryAfter, now);
  }
  return classifyTransportError(e);
}

export class InfluxV2Client implements WriteClient {
  private readonly influx: InfluxDB;

  constructor(private readonly opts: InfluxV2Options) {
    this.influx = new InfluxDB({
      url: opts.url,
      ...(opts.token ? { token: opts.token } : {}),
      timeout: opts.timeoutMs ?? 10_000,
    });
  }

  async write(lines: readonly string[]): Promise<void> {
    if (lines.length === 0) return;
    let api: WriteApi | undefined;
    try {
      api = this.influx.getWriteApi(this.opts.org, this.opts.bucket, 'ms', {
        batchSize: lines.length + 1,
        maxBatchBytes: Number.POSITIVE_INFINITY,
        flushInterval: 0,
        maxRetries: 0,
        maxBufferLines: 0,
        ...(this.opts.gzipThreshold !== undefined ? { gzipThreshold: this.opts.gzipThreshold } : {}),
        writeFailed: (error: Error) => Promise.reject(error),
      });
      api.writeRecords(lines as string[]);
      await api.flush();
    } catch (e) {
      // The library wants 204 (or 201); any other 2xx still means the server took the body.
      if (e instanceof HttpError && e.statusCode >= 200 && e.statusCode < 300) return;
      throw mapV2Error(e);
    } finally {
      api?.dispose();
    }
  }
}
