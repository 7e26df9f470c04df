import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  classifyHttpFailure,
  classifyTransportError,
  PermanentWriteError,
  parseRetryAfter,
  RetryableWriteError,
  serverMessage,
} from '../../../gateway/src/outputs/influx/errors.ts';
import { InfluxV1Client } from '../../../gateway/src/outputs/influx/v1.ts';
import { InfluxV2Client } from '../../../gateway/src/outputs/influx/v2.ts';
import { freePort } from '../../helpers/env.ts';

describe('classifyHttpFailure', () => {
  it.each([500, 502, 503, 504])('%i is retryable (server)', (s) => {
    const e = classifyHttpFailure(s, 'boom');
    expect(e).toBeInstanceOf(RetryableWriteError);
    expect((e as RetryableWriteError).reason).toBe('server');
  });

  it('429 and 408 are retryable and honour Retry-After', () => {
    const t = classifyHttpFailure(429, 'slow down', '7') as RetryableWriteError;
    expect(t).toBeInstanceOf(RetryableWriteError);
    expect(t.reason).toBe('throttled');
    expect(t.retryAfterMs).toBe(7000);
    const o = classifyHttpFailure(408, 'timeout') as RetryableWriteError;
    expect(o.reason).toBe('timeout');
  });

  it.each([401, 403, 404, 405])('%i is a configuration problem: retried, never dead-lettered', (s) => {
    const e = classifyHttpFailure(s, 'database not found: "x"');
    expect(e).toBeInstanceOf(RetryableWriteError);
    expect((e as RetryableWriteError).reason).toBe('config');
  });

  it('400 about the data is permanent, and a 1.x partial write is flagged', () => {
    const e = classifyHttpFailure(
      400,
      'partial write: field type conflict: input field "v" on measurement "telemetry" is type string, already exists as type float dropped=1',
    );
    expect(e).toBeInstanceOf(PermanentWriteError);
    expect((e as PermanentWriteError).partial).toBe(true);
    expect(classifyHttpFailure(400, "unable to parse 'x y=': missing field value")).toBeInstanceOf(
      PermanentWriteError,
    );
    expect(classifyHttpFailure(422, 'failure writing points: field type conflict')).toBeInstanceOf(
      PermanentWriteError,
    );
    expect(classifyHttpFailure(413, 'request entity too large')).toBeInstanceOf(PermanentWriteError);
  });

  it('400 that names a configuration problem is retryable config, not permanent', () => {
    for (const m of ['database is required', 'bucket not found', 'organization name "x" not found']) {
      const e = classifyHttpFailure(400, m);
      expect(e, m).toBeInstanceOf(RetryableWriteError);
      expect((e as RetryableWriteError).reason).toBe('config');
    }
  });
});

describe('helpers', () => {
  it('parses Retry-After seconds and dates', () => {
    const now = Date.UTC(2026, 0, 1, 0, 0, 0);
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(new Date(now + 5000).toUTCString(), now)).toBe(5000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('reads 1.x and 2.x error bodies', () => {
    expect(serverMessage('{"error":"database not found: \\"x\\""}')).toBe('database not found: "x"');
    expect(serverMessage('{"code":"invalid","message":"unable to parse"}')).toBe('unable to parse');
    expect(serverMessage('plain text')).toBe('plain text');
    expect(serverMessage('', 'from header')).toBe('from header');
  });

  it('classifies transport errors as retryable network or timeout', () => {
    const refused = new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    });
    expect(classifyTransportError(refused).reason).toBe('network');
    const timeout = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    expect(classifyTransportError(timeout).reason).toBe('timeout');
  });
});

/** A fake InfluxDB that answers each request with the next scripted response. */
interface Scripted {
  status: number;
  body?: string;
  headers?: Record<string, string>;
  delayMs?: number;
}

describe('clients against a scripted HTTP server', () => {
  let server: Server;
  let url: string;
  const script: Scripted[] = [];
  const seen: Array<{ url: string; headers: IncomingMessage['headers']; body: string }> = [];

  beforeAll(async () => {
    const port = await freePort();
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString();
      });
      req.on('end', () => {
        seen.push({ url: req.url ?? '', headers: req.headers, body });
        const next = script.shift() ?? { status: 204 };
        setTimeout(() => {
          res.writeHead(next.status, next.headers ?? {});
          res.end(next.body ?? '');
        }, next.delayMs ?? 0);
      });
    });
    await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    url = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const json = { 'content-type': 'application/json' };

  it('v1: sends lines to /write with precision=ms and credentials in a header', async () => {
    seen.length = 0;
    const c = new InfluxV1Client({ url: `${url}/`, db: 'my db', username: 'u', password: 'p' });
    await c.write(['m v=1 1', 'm v=2 2']);
    expect(seen[0]?.url).toBe('/write?db=my+db&precision=ms');
    expect(seen[0]?.body).toBe('m v=1 1\nm v=2 2');
    expect(seen[0]?.headers.authorization).toBe(`Basic ${Buffer.from('u:p').toString('base64')}`);
    const t = new InfluxV1Client({ url, db: 'x', token: 'secret' });
    await t.write(['m v=1 1']);
    expect(seen[1]?.headers.authorization).toBe('Token secret');
  });

  it('v1: maps 400 partial write to permanent, 404 to config, 503 with Retry-After to retryable', async () => {
    const c = new InfluxV1Client({ url, db: 'x' });
    script.push({
      status: 400,
      headers: json,
      body: '{"error":"partial write: field type conflict dropped=1"}',
    });
    const p = await c.write(['m v=1 1']).catch((e: unknown) => e);
    expect(p).toBeInstanceOf(PermanentWriteError);
    expect((p as PermanentWriteError).serverMessage).toBe('partial write: field type conflict dropped=1');
    expect((p as PermanentWriteError).partial).toBe(true);

    script.push({ status: 404, headers: json, body: '{"error":"database not found: \\"x\\""}' });
    const nf = await c.write(['m v=1 1']).catch((e: unknown) => e);
    expect(nf).toBeInstanceOf(RetryableWriteError);
    expect((nf as RetryableWriteError).reason).toBe('config');

    script.push({ status: 503, headers: { 'retry-after': '2' }, body: 'overloaded' });
    const r = await c.write(['m v=1 1']).catch((e: unknown) => e);
    expect(r).toBeInstanceOf(RetryableWriteError);
    expect((r as RetryableWriteError).retryAfterMs).toBe(2000);
  });

  it('v1: a response slower than the timeout is a retryable timeout', async () => {
    const c = new InfluxV1Client({ url, db: 'x', timeoutMs: 100 });
    script.push({ status: 204, delayMs: 1000 });
    const e = await c.write(['m v=1 1']).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RetryableWriteError);
    expect((e as RetryableWriteError).reason).toBe('timeout');
  });

  it('v2: writes through the client library to /api/v2/write with the token', async () => {
    seen.length = 0;
    const c = new InfluxV2Client({ url, token: 't0k', org: 'my-org', bucket: 'b' });
    await c.write(['m v=1 1', 'm v=2 2', 'm v=3 3']);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.url).toBe('/api/v2/write?org=my-org&bucket=b&precision=ms');
    expect(seen[0]?.body).toBe('m v=1 1\nm v=2 2\nm v=3 3');
    expect(seen[0]?.headers.authorization).toBe('Token t0k');
  });

  it('v2: maps library errors and never retries on its own', async () => {
    const c = new InfluxV2Client({ url, token: 't', org: 'o', bucket: 'b' });
    seen.length = 0;
    script.push({
      status: 422,
      headers: json,
      body: '{"code":"unprocessable entity","message":"field type conflict"}',
    });
    const p = await c.write(['m v=1 1']).catch((e: unknown) => e);
    expect(p).toBeInstanceOf(PermanentWriteError);
    expect((p as PermanentWriteError).status).toBe(422);
    expect((p as PermanentWriteError).serverMessage).toBe('field type conflict');

    script.push({
      status: 401,
      headers: json,
      body: '{"code":"unauthorized","message":"unauthorized access"}',
    });
    const u = await c.write(['m v=1 1']).catch((e: unknown) => e);
    expect((u as RetryableWriteError).reason).toBe('config');
    expect((u as RetryableWriteError).status).toBe(401);

    script.push({
      status: 429,
      headers: { ...json, 'retry-after': '1' },
      body: '{"code":"too many requests","message":"slow"}',
    });
    const t = await c.write(['m v=1 1']).catch((e: unknown) => e);
    expect((t as RetryableWriteError).reason).toBe('throttled');
    expect((t as RetryableWriteError).retryAfterMs).toBe(1000);

    script.push({ status: 500, body: 'internal' });
    const s = await c.write(['m v=1 1']).catch((e: unknown) => e);
    expect((s as RetryableWriteError).reason).toBe('server');

    // One request per write(): the library's own retry buffer stayed empty (time passes, no retry comes).
    await new Promise((r) => setTimeout(r, 300));
    expect(seen).toHaveLength(4);
  });

  it('v2: a refused connection is a retryable network error', async () => {
    const port = await freePort();
    const c = new InfluxV2Client({ url: `http://127.0.0.1:${port}`, org: 'o', bucket: 'b', timeoutMs: 2000 });
    const e = await c.write(['m v=1 1']).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RetryableWriteError);
    expect((e as RetryableWriteError).reason).toBe('network');
    const v1 = new InfluxV1Client({ url: `http://127.0.0.1:${port}`, db: 'x' });
    const e1 = await v1.write(['m v=1 1']).catch((x: unknown) => x);
    expect((e1 as RetryableWriteError).reason).toBe('network');
  });
});
