/**
 * InfluxDB 1.x write client: POST /write?db=..&precision=ms with the lines as the body.
 *
 * Partial writes: InfluxDB 1.x answers 400 `{"error":"partial write: ... dropped=N"}` when some
 * points of a batch were rejected (field type conflict, outside the retention policy, unparseable);
 * it has already stored the others. That is reported as a PermanentWriteError with `partial` set,
 * and the writer bisects the batch to find the bad lines, which sends the good ones again. This is
 * safe: a point is identified by measurement + tag set + timestamp, and writing an identical point
 * again overwrites it with the same field values, so a re-sent point is never a duplicate. The same
 * holds for a retry after a timeout or a dropped connection whose write did reach the server.
 */
import { classifyHttpFailure, classifyTransportError, serverMessage } from './errors.ts';
import type { WriteClient } from './source.ts';

export interface InfluxV1Options {
  /** Base URL, e.g. http://127.0.0.1:8086 */
  url: string;
  db: string;
  /** Retention policy; the database's default when absent. */
  rp?: string;
  username?: string;
  password?: string;
  /** Sent as `Authorization: Token <token>` (InfluxDB 1.8+ and the 2.x compatibility API). */
  token?: string;
  timeoutMs?: number;
  /** For tests; the global fetch otherwise. */
  fetch?: typeof fetch;
}

export class InfluxV1Client implements WriteClient {
  readonly endpoint: string;
  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;
  private readonly fetchFn: typeof fetch;

  constructor(opts: InfluxV1Options) {
    const base = opts.url.replace(/\/+$/, '');
    const q = new URLSearchParams({ db: opts.db, precision: 'ms' });
    if (opts.rp) q.set('rp', opts.rp);
    this.endpoint = `${base}/write?${q.toString()}`;
    this.headers = { 'content-type': 'text/plain; charset=utf-8' };
    // Credentials go in a header, never in the URL, so they cannot leak into logs of the URL.
    if (opts.token) this.headers.authorization = `Token ${opts.token}`;
    else if (opts.username !== undefined)
      this.headers.authorization = `Basic ${Buffer.from(`${opts.username}:${opts.password ?? ''}`).toString('base64')}`;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.fetchFn = opts.fetch ?? fetch;
  }

  async write(lines: readonly string[]): Promise<void> {
    if (lines.length === 0) return;
    let res: Response;
    try {
      res = await this.fetchFn(this.endpoint, {
        method: 'POST',
        headers: this.headers,
        body: lines.join('\n'),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (e) {
      throw classifyTransportError(e);
    }
    let body: string;
    try {
      body = await res.text();
    } catch (e) {
      // The status arrived but the body did not: for a success the write is done; otherwise
      // the connection failed mid-response and the batch is retried.
      if (res.ok) return;
      throw classifyTransportError(e);
    }
    if (res.ok) return;
    const msg = serverMessage(body, res.headers.get('x-influxdb-error'));
    throw classifyHttpFailure(res.status, msg, res.headers.get('retry-after'));
  }
}
