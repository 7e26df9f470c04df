/**
 * The gateway's HTTP API. A person signs in with e-mail and password: the gateway keeps the session in an
 * HttpOnly cookie the page never sees, and every write carries the session's CSRF token in a header. A
 * script's API token may be pasted instead (kept for this tab only) and is sent as a bearer token.
 */

const TOKEN_KEY = 'gateway.token';
/** The header the gateway reads the CSRF token from on writes made with the session cookie. */
export const CSRF_HEADER = 'x-csrf-token';

export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} message
   * @param {number} [retryAfterSec]
   */
  constructor(status, code, message, retryAfterSec) {
    super(message);
    this.status = status;
    this.code = code;
    this.retryAfterSec = retryAfterSec;
  }
}

/** @returns {string} */
export function getToken() {
  try {
    return sessionStorage.getItem(TOKEN_KEY) ?? '';
  } catch {
    return '';
  }
}

/** @param {string} token */
export function setToken(token) {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

let csrfToken = '';
/** @param {unknown} v the CSRF token the gateway handed out with the session */
export function setCsrf(v) {
  csrfToken = typeof v === 'string' ? v : '';
}

/** @type {(e: ApiError) => void} */
let onUnauthorized = () => {};
/** @param {(e: ApiError) => void} fn called when a request is refused with 401 */
export function whenUnauthorized(fn) {
  onUnauthorized = fn;
}

/**
 * @param {string} path
 * @param {Record<string, string | number | undefined>} [params]
 */
export function url(path, params = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

/**
 * @param {Response} res
 * @returns {Promise<ApiError>}
 */
export async function errorOf(res) {
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
 * @param {string} method
 * @param {string} path
 * @param {{body?: unknown, token?: string, quiet?: boolean}} [o] token: this one instead of the saved one;
 *   quiet: a 401 is the caller's business (no "session expired" notice)
 */
export async function request(method, path, o = {}) {
  const token = o.token ?? getToken();
  /** @type {Record<string, string>} */
  const headers = { accept: 'application/json' };
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
 * @param {string} path
 * @param {Record<string, string | number | undefined>} [params]
 */
export const get = (path, params) => request('GET', url(path, params));

/**
 * @param {string} path
 * @param {unknown} body
 */
export const post = (path, body) => request('POST', path, { body: body ?? {} });

/**
 * @param {string} path
 * @param {unknown} body
 */
export const patch = (path, body) => request('PATCH', path, { body });

/** @param {string} path */
export const del = (path) => request('DELETE', path);

/** @param {number} sec */
const seconds = (sec) => (sec >= 90 ? `${Math.ceil(sec / 60)} min` : `${sec} s`);

/**
 * A sentence for an error, naming what the user can do about it.
 * @param {unknown} e
 */
export function describeError(e) {
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
