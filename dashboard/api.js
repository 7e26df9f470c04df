/** The gateway's HTTP API, and the bearer token the user typed (kept for this tab only). */

const TOKEN_KEY = 'gateway.token';

export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} message
   */
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
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
 * @returns {Promise<never>}
 */
async function fail(res) {
  let code = `HTTP_${res.status}`;
  let message = res.statusText || 'request failed';
  try {
    const body = await res.json();
    if (body && typeof body === 'object') {
      if (typeof body.error === 'string') code = body.error;
      if (typeof body.message === 'string') message = body.message;
    }
  } catch {
    /* not JSON */
  }
  throw new ApiError(res.status, code, message);
}

/**
 * GET a JSON resource. Reads send the token too when one is set (reads may require a viewer token).
 * @param {string} path
 * @param {Record<string, string | number | undefined>} [params]
 */
export async function get(path, params) {
  const token = getToken();
  const res = await fetch(url(path, params), {
    headers: { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });
  if (!res.ok) return fail(res);
  return res.json();
}

/**
 * POST JSON with the bearer token.
 * @param {string} path
 * @param {unknown} body
 */
export async function post(path, body) {
  const token = getToken();
  const res = await fetch(path, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });
  if (!res.ok) return fail(res);
  return res.json();
}

/**
 * A sentence for an error, naming what the user can do about it.
 * @param {unknown} e
 */
export function describeError(e) {
  if (e instanceof ApiError) {
    if (e.status === 401)
      return `Not signed in (401 ${e.code}): ${e.message}. Enter a valid access token at the top of the page.`;
    if (e.status === 403) return `Not allowed (403 ${e.code}): ${e.message}.`;
    return `${e.status} ${e.code}: ${e.message}`;
  }
  if (e instanceof TypeError) return `The gateway cannot be reached: ${e.message}`;
  return e instanceof Error ? e.message : String(e);
}
