/**
 * The gateway's HTTP API. A person signs in with e-mail and password: the gateway keeps the session in an
 * HttpOnly cookie the page never sees, and every write carries the session's CSRF token in a header. A
 * script's API token may be pasted instead (kept for this tab only) and is sent as a bearer token.
 */

const TOKEN_KEY = 'gateway.token';
/** The header the gateway reads the CSRF token from on writes made with the session cookie. */
export const CSRF_HEADER = 'x-csrf-token';

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly retryAfterSec: number | undefined;
  constructor(status: number, code: string, message: string, retryAfterSec?: number) {
    super(message);
    this.status = status;
    this.code = code;
    this.retryAfterSec = retryAfterSec;
  }
}

export function getToken(): string {
  try {
    return sessionStorage.getItem(TOKEN_KEY) ?? '';
  } catch {
    return '';
  }
}

export function setToken(token: string) {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

let csrfToken = '';
/** @param v the CSRF token the gateway handed out with the session */
export function setCsrf(v: unknown) {
  csrfToken = typeof v === 'string' ? v : '';
}

let onUnauthorized: (e: ApiError) => void = (): void => {};
/** @param fn called when a request is refused with 401 */
export function whenUnauthorized(fn: (e: ApiError) => void) {
  onUnauthorized = fn;
}

export function url(path: string, params: Record<string, string | number | undefined> = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

export async function errorOf(res: Response): Promise<ApiError> {
  let code = `HTTP_${res.status}`;
  let message = res.statusText || 'request failed';
  try {
    const body = await res.json();
    if (body && typeof body === 'object') {
      if (typeof body.error === 'string') code = body.error;
      if (typeof body.message === 'string') message = body.message;
    }
  } catch {
    /* not JSON: the status line says it */
  }
  const retry = Number(res.headers.get('retry-after'));
  return new ApiError(res.status, code, message, Number.isFinite(retry) && retry > 0 ? retry : undefined);
}

/**
 * @param [o] token: this one instead of the saved one;
 *   quiet: a 401 is the caller's business (no "session expired" notice)
 */
export async function request(
  method: string,
  path: string,
  o: { body?: unknown; token?: string; quiet?: boolean } = {},
) {
  const token = o.token ?? getToken();

  const headers: Record<string, string> = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  else if (method !== 'GET' && csrfToken) headers[CSRF_HEADER] = csrfToken;
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    ...(o.body !== undefined ? { body: JSON.stringify(o.body) } : {}),
  });
  if (!res.ok) {
    const err = await errorOf(res);
    if (res.status === 401 && !o.quiet) onUnauthorized(err);
    throw err;
  }
  if (res.status === 204) return null;
  const text = await res.text();
  return text ? JSON.parse(text) : null;
}

/**
 * GET a JSON resource (with the session, or the token when one is set: reads may need one).
 */
export const get = (path: string, params?: Record<string, string | number | undefined>) =>
  request('GET', url(path, params));

export const post = (path: string, body: unknown) => request('POST', path, { body: body ?? {} });

export const patch = (path: string, body: unknown) => request('PATCH', path, { body });

export const del = (path: string) => request('DELETE', path);

const seconds = (sec: number) => (sec >= 90 ? `${Math.ceil(sec / 60)} min` : `${sec} s`);

/**
 * A sentence for an error, naming what the user can do about it.
 */
export function describeError(e: unknown) {
  if (e instanceof ApiError) {
    if (e.status === 401)
      return `Not signed in (401 ${e.code}): ${e.message}. Sign in, or enter a valid access token.`;
    if (e.status === 403) return `Not allowed (403 ${e.code}): ${e.message}.`;
    if (e.status === 429)
      return `Too many attempts (429): ${e.message}.${e.retryAfterSec ? ` Try again in ${seconds(e.retryAfterSec)}.` : ''}`;
    return `${e.status} ${e.code}: ${e.message}`;
  }
  if (e instanceof TypeError) return `The gateway cannot be reached: ${e.message}`;
  return e instanceof Error ? e.message : String(e);
}
