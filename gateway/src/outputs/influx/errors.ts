/**
 * Write failures, split by what the writer must do about them.
 *
 * RetryableWriteError: the batch is fine, the server or the way to it is not. The writer keeps the
 * batch at the head of the outbox and retries it after a backoff; nothing later overtakes it.
 *   - network errors (refused, reset, DNS), timeouts, 5xx, 408, 425, 429: `reason` network / timeout
 *     / server / throttled; Retry-After is honoured when the server sends it.
 *   - 401, 403, 404 and every other 4xx that is not about the data (wrong token, missing database or
 *     bucket, unknown org, bad precision, method not allowed): `reason` 'config'. These are
 *     configuration problems, and dead-lettering would throw away every point until someone fixes the
 *     configuration. The writer retries them with a long backoff and reports them in health as errors,
 *     so the backlog waits in the outbox and drains once the configuration is fixed.
 *
 * PermanentWriteError: the server rejected the data itself: 400 (unparseable line, field type
 * conflict, points outside the retention policy, partial write), 413 (body too large) and 422
 * (InfluxDB 2 field type conflict / unprocessable points). Retrying the same batch would fail the same
 * way, so the writer bisects it: the good halves are written and a single bad line is moved to the
 * dead-letter table with the server's reason. A 400 whose message names a configuration problem
 * ("database is required", "bucket not found", ...) is 'config', not permanent.
 */

export type RetryReason = 'network' | 'timeout' | 'server' | 'throttled' | 'config';

/** A failed write, with the server's own message (or the transport's, when no server answered). */
abstract class WriteFailure extends Error {
  abstract readonly retryable: boolean;
  constructor(
    override readonly name: 'RetryableWriteError' | 'PermanentWriteError',
    readonly serverMessage: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export class RetryableWriteError extends WriteFailure {
  readonly retryable = true as const;
  constructor(
    readonly reason: RetryReason,
    serverMessage: string,
    readonly status?: number,
    /** How long the server asked us to wait (Retry-After), in ms. */
    readonly retryAfterMs?: number,
    options?: { cause?: unknown },
  ) {
    super(
      'RetryableWriteError',
      serverMessage,
      status === undefined ? `${reason}: ${serverMessage}` : `${status} ${reason}: ${serverMessage}`,
      options,
    );
  }
}

export class PermanentWriteError extends WriteFailure {
  readonly retryable = false as const;
  constructor(
    readonly status: number,
    serverMessage: string,
    /** InfluxDB 1.x reported a partial write: the points it could store were stored. */
    readonly partial = false,
  ) {
    super('PermanentWriteError', serverMessage, `${status}: ${serverMessage}`);
  }
}

export type WriteError = RetryableWriteError | PermanentWriteError;

const CONFIG_MESSAGE =
  /database is required|database not found|retention policy not found|bucket (?:is required|not specified|not found)|org(?:anization)?\b.*(?:is required|not specified|not found)|(?:invalid|unknown|bad) precision/i;

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);

/** Retry-After: delay-seconds or an HTTP date. Returns ms from `now`, or undefined when absent/unreadable. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const v = value.trim();
  if (v === '') return undefined;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/**
 * The server's message from an error body: InfluxDB 1.x `{"error": "..."}`, InfluxDB 2/3
 * `{"code": "...", "message": "..."}`, otherwise the text itself (trimmed and shortened).
 */
export function serverMessage(body: string, headerMessage?: string | null): string {
  const text = body.trim();
  if (text.startsWith('{')) {
    try {
      const json = JSON.parse(text) as Record<string, unknown>;
      const msg = json.error ?? json.message;
      if (typeof msg === 'string' && msg !== '') return msg;
    } catch {
      // Not JSON after all: the raw text is the message.
      return text.slice(0, 1000);
    }
  }
  if (text !== '') return text.slice(0, 1000);
  return headerMessage ?? '';
}

/** Maps a non-2xx HTTP response onto a write error (see the rules at the top of this file). */
export function classifyHttpFailure(
  status: number,
  message: string,
  retryAfter?: string | null,
  now = Date.now(),
): WriteError {
  const msg = message || `HTTP ${status}`;
  const wait = parseRetryAfter(retryAfter, now);
  if (status === 429) return new RetryableWriteError('throttled', msg, status, wait);
  if (status === 408) return new RetryableWriteError('timeout', msg, status, wait);
  if (status === 425 || status >= 500) return new RetryableWriteError('server', msg, status, wait);
  if (status === 400 || status === 413 || status === 422) {
    if (status === 400 && CONFIG_MESSAGE.test(msg) && !/partial write|unable to parse/i.test(msg))
      return new RetryableWriteError('config', msg, status, wait);
    return new PermanentWriteError(status, msg, /partial write/i.test(msg));
  }
  // 401, 403, 404, 405, 415, ...: configuration, never the data's fault.
  return new RetryableWriteError('config', msg, status, wait);
}

function errorCode(e: unknown): string | undefined {
  if (typeof e !== 'object' || e === null) return undefined;
  const code = (e as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** Maps an error thrown before any HTTP response (fetch, socket, timeout) onto a retryable error. */
export function classifyTransportError(e: unknown): RetryableWriteError {
  if (e instanceof RetryableWriteError) return e;
  const err = e instanceof Error ? e : new Error(String(e));
  const name = err.name;
  const cause = (err as { cause?: unknown }).cause;
  const code = errorCode(err) ?? errorCode(cause);
  const causeMsg = cause instanceof Error ? cause.message : undefined;
  const message = causeMsg && causeMsg !== err.message ? `${err.message}: ${causeMsg}` : err.message;
  if (
    name === 'TimeoutError' ||
    name === 'RequestTimedOutError' ||
    code === 'ETIMEDOUT' ||
    code === 'ESOCKETTIMEDOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT'
  )
    return new RetryableWriteError('timeout', message || 'request timed out', undefined, undefined, {
      cause: e,
    });
  if (code !== undefined && NETWORK_CODES.has(code))
    return new RetryableWriteError('network', `${code}: ${message}`, undefined, undefined, { cause: e });
  // Anything else (an aborted response, an unexpected exception in the HTTP stack) is treated as a
  // transport failure too: retrying keeps the data, and the error shows in health until it clears.
  return new RetryableWriteError('network', message || name, undefined, undefined, { cause: e });
}

export function isRetryable(e: unknown): e is RetryableWriteError {
  return e instanceof RetryableWriteError;
}

export function isPermanent(e: unknown): e is PermanentWriteError {
  return e instanceof PermanentWriteError;
}
