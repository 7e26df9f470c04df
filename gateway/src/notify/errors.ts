/** Delivery failures, split by what the dispatcher must do about them, and secret redaction. */

/**
 * A failed send. `permanent`: retrying the same notification would fail the same way (a webhook
 * 4xx other than 408/425/429, an SMTP 5xx rejection of the recipient or the message), so the
 * delivery is marked failed at once. Otherwise it is retried with backoff.
 */
export class DeliveryError extends Error {
  override readonly name = 'DeliveryError';
  constructor(
    message: string,
    readonly permanent: boolean,
    /** How long the receiver asked us to wait (Retry-After), in ms. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

export interface ClassifiedError {
  permanent: boolean;
  message: string;
  retryAfterMs?: number;
}

/** Any thrown value as a delivery outcome: unknown errors are retryable. */
export function classifyError(e: unknown): ClassifiedError {
  if (e instanceof DeliveryError) {
    return e.retryAfterMs === undefined
      ? { permanent: e.permanent, message: e.message }
      : { permanent: e.permanent, message: e.message, retryAfterMs: e.retryAfterMs };
  }
  if (e instanceof Error) return { permanent: false, message: `${e.name}: ${e.message}` };
  return { permanent: false, message: String(e) };
}

/** What a channel's send gives: sent, or a failure that is retryable or permanent. */
export type SendOutcome = { ok: true } | SendFailure;
/**
 * `unconfigured`: the channel is not set up at all (no SMTP server, no webhook secret). The delivery
 * fails for good as any permanent failure does, but it is the configuration's choice, not a fault.
 */
export type SendFailure = { ok: false; unconfigured?: true } & ClassifiedError;

/** Any thrown value as a failed send (see classifyError). */
export function failureOf(e: unknown): SendFailure {
  return { ok: false, ...classifyError(e) };
}

/** Runs one send: resolving is success, a throw is a failure classified by classifyError. */
export async function outcomeOf(send: () => Promise<void>): Promise<SendOutcome> {
  try {
    await send();
    return { ok: true };
  } catch (e) {
    return failureOf(e);
  }
}

/**
 * Every form in which a secret could come back in an error text: as is, base64 (SMTP AUTH LOGIN
 * echoes), and the AUTH PLAIN token when a user name is known. Short strings are ignored, they
 * would redact ordinary words.
 */
export function secretForms(secret: string | undefined, user?: string): string[] {
  if (!secret || secret.length < 3) return [];
  const forms = [
    secret,
    Buffer.from(secret).toString('base64'),
    encodeURIComponent(secret),
    Buffer.from(`\0${user ?? ''}\0${secret}`).toString('base64'),
  ];
  if (user) forms.push(Buffer.from(`${user}\0${user}\0${secret}`).toString('base64'));
  return [...new Set(forms)].filter((f) => f.length >= 3).sort((a, b) => b.length - a.length);
}

/** Replaces every secret form in `text` with `***`. */
export function redact(text: string, forms: readonly string[]): string {
  let out = text;
  for (const f of forms) out = out.split(f).join('***');
  return out;
}

/** Text of an error fit for a log line or the store: one line, bounded, secrets removed. */
export function safeErrorText(text: string, forms: readonly string[], max = 500): string {
  const oneLine = redact(text, forms)
    .replace(/[\r\n\t]+/g, ' ')
    .trim();
  return oneLine.length > max ? `${oneLine.slice(0, max)}…` : oneLine;
}

/**
 * A webhook URL for logs and the API: scheme, host and path only. User info and the query string
 * (where tokens often live) are dropped.
 */
export function displayTarget(channel: string, target: string): string {
  if (channel !== 'webhook') return target;
  try {
    const u = new URL(target);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch (e) {
    return `(invalid URL: ${e instanceof Error ? e.name : 'error'})`;
  }
}
