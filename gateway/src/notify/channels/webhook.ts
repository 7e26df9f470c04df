/**
 * Webhook delivery: one signed JSON POST per notification and recipient.
 *
 * Request:
 *   POST <recipient webhook URL>
 *   Content-Type: application/json
 *   X-Gateway-Event: raise | reminder | overdue | extension | resolve
 *   X-Gateway-Delivery: <eventId>            (the same on every retry: receivers de-duplicate on it)
 *   X-Gateway-Id: <gatewayId>
 *   X-Gateway-Timestamp: <unix seconds>      (the time of this attempt)
 *   X-Gateway-Signature: sha256=<hex>
 *   body: {"event": <kind>, "eventId": <eventId>, "alert": <alert DTO>}
 *
 * Signature: hex HMAC-SHA256, keyed with `notify.webhookSecret` (UTF-8), over the bytes
 * `<X-Gateway-Timestamp> + "." + <raw request body>`. To verify, a receiver recomputes it over the
 * raw body exactly as received (before any JSON parsing), compares in constant time, and rejects a
 * timestamp more than a few minutes from its own clock (replays). `verifySignature` below does all
 * three.
 *
 * Outcome: any 2xx is success. 408, 425, 429 and 5xx, network errors and timeouts are retried
 * (Retry-After is honoured); every other status, 3xx included (redirects are not followed, a signed
 * body is never forwarded elsewhere), is permanent.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Delivery } from '../delivery.ts';
import { DeliveryError, outcomeOf, safeErrorText, secretForms } from '../errors.ts';
import { type NotificationChannel, unconfiguredChannel } from './channel.ts';

export const SIGNATURE_HEADER = 'X-Gateway-Signature';
export const TIMESTAMP_HEADER = 'X-Gateway-Timestamp';

export interface WebhookRequest {
  url: string;
  kind: string;
  eventId: string;
  /** The JSON body, sent byte for byte as signed. */
  body: string;
}

export interface WebhookSender {
  /** Resolves on a 2xx; otherwise throws a DeliveryError (permanent or retryable). */
  send(req: WebhookRequest): Promise<void>;
}

/** `sha256=<hex>` over `<timestamp>.<body>`. */
export function signPayload(secret: string, timestamp: string | number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export interface VerifyOptions {
  /** Largest accepted distance between the timestamp and now, seconds (default 300). */
  toleranceSec?: number;
  /** Receiver's clock, epoch ms (default Date.now()). */
  now?: number;
}

/**
 * Checks an `X-Gateway-Signature` header for a raw body and its `X-Gateway-Timestamp`. False for a
 * wrong or malformed signature, a malformed timestamp, or one outside the tolerance.
 */
export function verifySignature(
  secret: string,
  timestamp: string | number | undefined,
  body: string | Buffer,
  header: string | undefined,
  opts: VerifyOptions = {},
): boolean {
  if (!secret || timestamp === undefined || header === undefined) return false;
  const ts = String(timestamp);
  if (!/^\d{1,12}$/.test(ts)) return false;
  const nowSec = (opts.now ?? Date.now()) / 1000;
  if (Math.abs(nowSec - Number(ts)) > (opts.toleranceSec ?? 300)) return false;
  const m = /^sha256=([0-9a-f]{64})$/i.exec(header.trim());
  if (!m) return false;
  const expected = createHmac('sha256', secret)
    .update(`${ts}.`)
    .update(typeof body === 'string' ? Buffer.from(body) : body)
    .digest();
  return timingSafeEqual(expected, Buffer.from(m[1]!, 'hex'));
}

export interface HttpWebhookSenderOptions {
  secret: string;
  gatewayId?: string;
  /** Per-request timeout, ms (default 10 000). */
  timeoutMs?: number;
  /** Clock for the timestamp header, epoch ms. */
  now?: () => number;
}

const RETRYABLE_STATUS = new Set([408, 425, 429]);
const MAX_BODY_READ = 2048;

/** Retry-After as ms: delta seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

async function readSnippet(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let done = false;
  while (!done && size < MAX_BODY_READ) {
    const r = await reader.read();
    done = r.done;
    if (r.value) {
      chunks.push(r.value);
      size += r.value.byteLength;
    }
  }
  if (!done) await reader.cancel();
  return Buffer.concat(chunks).subarray(0, MAX_BODY_READ).toString('utf8');
}

export class HttpWebhookSender implements WebhookSender {
  private readonly secret: string;
  private readonly forms: string[];
  private readonly timeoutMs: number;
  private readonly now: () => number;
  private readonly gatewayId: string | undefined;

  constructor(opts: HttpWebhookSenderOptions) {
    if (!opts.secret) throw new Error('a webhook sender needs notify.webhookSecret');
    this.secret = opts.secret;
    this.forms = secretForms(opts.secret);
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.now = opts.now ?? Date.now;
    this.gatewayId = opts.gatewayId;
  }

  async send(req: WebhookRequest): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url);
    } catch (e) {
      throw new DeliveryError(`invalid webhook URL (${e instanceof Error ? e.name : 'error'})`, true);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new DeliveryError(`unsupported webhook URL scheme ${url.protocol}`, true);

    const timestamp = String(Math.floor(this.now() / 1000));
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      'User-Agent': 'stormwatch-gateway',
      'X-Gateway-Event': req.kind,
      'X-Gateway-Delivery': req.eventId,
      [TIMESTAMP_HEADER]: timestamp,
      [SIGNATURE_HEADER]: signPayload(this.secret, timestamp, req.body),
    };
    if (this.gatewayId) headers['X-Gateway-Id'] = this.gatewayId;

    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers,
        body: req.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (e) {
      throw new DeliveryError(this.describeNetworkError(e), false);
    }

    const snippet = safeErrorText(await this.snippet(res), this.forms, 200);
    if (res.status >= 200 && res.status < 300) return;
    const what = `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}${snippet ? `: ${snippet}` : ''}`;
    if (res.status >= 500 || RETRYABLE_STATUS.has(res.status))
      throw new DeliveryError(what, false, parseRetryAfter(res.headers.get('retry-after'), this.now()));
    if (res.status >= 300 && res.status < 400)
      throw new DeliveryError(`${what} (redirects are not followed)`, true);
    throw new DeliveryError(what, true);
  }

  private async snippet(res: Response): Promise<string> {
    try {
      return await readSnippet(res);
    } catch (e) {
      return `(response body unreadable: ${e instanceof Error ? e.name : 'error'})`;
    }
  }

  private describeNetworkError(e: unknown): string {
    if (e instanceof Error) {
      if (e.name === 'TimeoutError' || e.name === 'AbortError') return `timed out after ${this.timeoutMs} ms`;
      const cause = (e as { cause?: unknown }).cause;
      const code =
        cause && typeof cause === 'object' && 'code' in cause
          ? String((cause as { code: unknown }).code)
          : '';
      const causeMsg = cause instanceof Error ? cause.message : '';
      return safeErrorText(
        `network error${code ? ` ${code}` : ''}: ${causeMsg || e.message}`,
        this.forms,
        300,
      );
    }
    return safeErrorText(`network error: ${String(e)}`, this.forms, 300);
  }
}

/** The webhook channel: each delivery POSTed to its target URL by the sender. */
export function webhookChannel(sender: WebhookSender | undefined): NotificationChannel {
  if (!sender) return unconfiguredChannel('no webhook channel is configured (is notify.webhookSecret set?)');
  return {
    send: (d: Delivery) =>
      outcomeOf(() => sender.send({ url: d.target, kind: d.kind, eventId: d.eventId, body: d.body })),
  };
}
