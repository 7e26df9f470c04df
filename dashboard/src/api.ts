/**
 * The gateway's HTTP API. A person signs in with e-mail and password: the gateway keeps the session in an
 * HttpOnly cookie the page never sees, and every write carries the session's CSRF token in a header. A
 * script's API token may be pasted instead (kept for this tab only) and is sent as a bearer token.
 */

import type { z } from 'zod';
import type { RouteKey, Routes } from '../../shared/src/api/routes.ts';
import { nextPageOf } from '../../shared/src/links.ts';

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
 * The gateway did not answer: the request failed on its way (no route, refused, cut), it had no answer in
 * time, or a proxy in front of the gateway answered that it cannot reach it. A `TypeError`, as `fetch`'s
 * own network failures are. The browser's `navigator.onLine` is not asked: a phone on a network with no
 * way to the gateway says it is online.
 */
export class GatewayUnreachable extends TypeError {}

/** How long a read waits for the gateway's answer to begin before it counts as not reached. */
export const REACH_TIMEOUT_MS = 8_000;
/** A write's wait: longer, as storing may take the gateway a while (a document to build, say). */
const WRITE_TIMEOUT_MS = 30_000;
/** What an upload's wait grows by, per byte sent (16 KB a second: a weak signal in the field). */
const UPLOAD_MS_PER_BYTE = 1 / 16;
/** What a proxy answers when the gateway behind it is not there. */
const PROXY_GONE = [502, 503, 504];

/** `fetch`, failing with `GatewayUnreachable` when the gateway's answer does not begin in time. */
async function reach(path: string, init: RequestInit): Promise<Response> {
  const size = init.body instanceof Blob ? init.body.size : 0;
  const read = init.method === 'GET' || init.method === 'HEAD';
  const ms = Math.round((read ? REACH_TIMEOUT_MS : WRITE_TIMEOUT_MS) + size * UPLOAD_MS_PER_BYTE);
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), ms);
  try {
    return await fetch(path, { ...init, signal: ctl.signal });
  } catch (e) {
    throw new GatewayUnreachable(
      ctl.signal.aborted ? `no answer in ${Math.round(ms / 1000)} s` : errorDetail(e),
    );
  } finally {
    clearTimeout(timer);
  }
}

/**
 * @param [o] token: this one instead of the saved one;
 *   quiet: a 401 is the caller's business (no "session expired" notice)
 * @returns the answer's JSON, or null when it has no body
 */
export async function request(
  method: string,
  path: string,
  o: Transport & {
    body?: unknown;
    bytes?: Blob;
    /** Reads the answer's headers (a list's Link to its next page). */
    headers?: (h: Headers) => void;
  } = {},
): Promise<unknown> {
  const token = o.token ?? getToken();

  const headers: Record<string, string> = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  else if (method !== 'GET' && csrfToken) headers[CSRF_HEADER] = csrfToken;
  if (o.bytes) headers['content-type'] = o.bytes.type || 'application/octet-stream';
  else if (o.body !== undefined) headers['content-type'] = 'application/json';
  const body = o.bytes ?? (o.body !== undefined ? JSON.stringify(o.body) : undefined);
  const res = await reach(path, {
    method,
    headers,
    credentials: 'same-origin',
    ...(body !== undefined ? { body } : {}),
  });
  if (!res.ok) {
    const err = await errorOf(res);
    // A proxy in front of the gateway answering for it (not the gateway's own error): not reached.
    if (PROXY_GONE.includes(res.status) && err.code === `HTTP_${res.status}`)
      throw new GatewayUnreachable(`HTTP ${res.status} from the way to the gateway`);
    if (res.status === 401 && !o.quiet) onUnauthorized(err);
    throw err;
  }
  o.headers?.(res.headers);
  if (res.status === 204) return null;
  const text = await res.text();
  return text ? (JSON.parse(text) as unknown) : null;
}

/** How a request is sent: with this token instead of the saved one; quiet: a 401 is the caller's business. */
export interface Transport {
  token?: string;
  quiet?: boolean;
}

/** A route of the API that answers JSON (the others: the live feed, photos, printable pages, metrics). */
type JsonRoute = { [K in RouteKey]: Routes[K]['response'] extends z.ZodType ? K : never }[RouteKey];
type RoutesOf<M extends string> = Extract<JsonRoute, `${M} ${string}`>;
export type GetRoute = RoutesOf<'GET'>;
export type PostRoute = RoutesOf<'POST'>;
export type PatchRoute = RoutesOf<'PATCH'>;
export type DeleteRoute = RoutesOf<'DELETE'>;
/** A list answered a page at a time. */
export type PagedRoute = { [K in GetRoute]: Routes[K] extends { paged: true } ? K : never }[GetRoute];

/** A route's answer, as its schema in the contract says. */
export type Answer<K extends RouteKey> = Routes[K]['response'] extends z.ZodType
  ? z.output<Routes[K]['response']>
  : never;

/** An object with no keys: a request that needs none. */
type Empty = Record<never, never>;
/** A query string's value: a string or number where the schema reads one from the text. */
type Loose<T> = unknown extends T ? string | number : T;
type QueryOf<S extends z.ZodType> = { [P in keyof z.input<S>]: Loose<z.input<S>[P]> | undefined };
/** An input of a route: required when the route takes one with a required key. */
type Input<K extends RouteKey, Part extends 'params' | 'query' | 'body', V> = Routes[K] extends {
  [k in Part]: z.ZodType;
}
  ? Empty extends V
    ? { [k in Part]?: V }
    : { [k in Part]: V }
  : { [k in Part]?: undefined };
type Part<K extends RouteKey, P extends 'params' | 'query' | 'body'> = Routes[K] extends {
  [k in P]: infer S extends z.ZodType;
}
  ? S
  : z.ZodNever;

/** What a request to a route carries: its path parameters, its query and its body. */
export type RouteRequest<K extends RouteKey> = Input<K, 'params', z.input<Part<K, 'params'>>> &
  Input<K, 'query', QueryOf<Part<K, 'query'>>> &
  Input<K, 'body', z.input<Part<K, 'body'>>> &
  Transport;
/** The body a route takes. */
export type Body<K extends RouteKey> = RouteRequest<K>['body'];
/** The request's argument: optional when the route needs nothing. */
type Args<K extends RouteKey> = Empty extends RouteRequest<K> ? [o?: RouteRequest<K>] : [o: RouteRequest<K>];

/** What every request of a route is sent with, whichever route it is. */
interface Sent extends Transport {
  params?: Record<string, string | number | undefined>;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
}

/** The path of a route (`GET /api/alerts/:id`) with its parameters, and its query string. */
export function pathOf(route: RouteKey, o: Pick<Sent, 'params' | 'query'> = {}) {
  const path = route
    .slice(route.indexOf(' ') + 1)
    .replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(String(o.params?.[name] ?? '')));
  return url(path, o.query);
}

/** Sends a request to a route: its method, its path, the body when it has one. */
function send(route: RouteKey, o: Sent = {}, headers?: (h: Headers) => void): Promise<unknown> {
  const method = route.slice(0, route.indexOf(' '));
  return request(method, pathOf(route, o), {
    ...(o.token !== undefined ? { token: o.token } : {}),
    ...(o.quiet ? { quiet: true } : {}),
    ...(headers ? { headers } : {}),
    ...(method === 'GET' || method === 'DELETE' ? {} : { body: o.body ?? {} }),
  });
}

/** GET a JSON resource (with the session, or the token when one is set: reads may need one). */
export async function get<K extends GetRoute>(route: K, ...[o]: Args<K>): Promise<Answer<K>> {
  return (await send(route, o as Sent | undefined)) as Answer<K>;
}

/** POST to a route; its body is `{}` unless given. */
export async function post<K extends PostRoute>(route: K, ...[o]: Args<K>): Promise<Answer<K>> {
  return (await send(route, o as Sent | undefined)) as Answer<K>;
}

export async function patch<K extends PatchRoute>(route: K, ...[o]: Args<K>): Promise<Answer<K>> {
  return (await send(route, o as Sent | undefined)) as Answer<K>;
}

export async function del<K extends DeleteRoute>(route: K, ...[o]: Args<K>): Promise<Answer<K>> {
  return (await send(route, o as Sent | undefined)) as Answer<K>;
}

/** Where a page starts: the first page's request, or the path of a next page the page before named. */
type From<K extends PagedRoute> = Args<K> | [from: { next: string }];

/**
 * One page of a list, the body as answered (a bare array, or the quarantine's `{ items, devices }`),
 * and the path of the next page when more follow.
 */
export async function getPageBody<K extends PagedRoute>(
  route: K,
  ...[from]: From<K>
): Promise<{ body: Answer<K>; next: string | undefined }> {
  let next: string | undefined;
  const readLink = (h: Headers) => {
    next = nextPageOf(h.get('link'));
  };
  const body =
    from && 'next' in from
      ? await request('GET', from.next, { headers: readLink })
      : await send(route, from as Sent | undefined, readLink);
  return { body: body as Answer<K>, next };
}

/** A list answered a page at a time as a bare array. */
type ListRoute = { [K in PagedRoute]: Answer<K> extends readonly unknown[] ? K : never }[PagedRoute];

/** One page of a list: its items, and the path of the next page when more follow. */
export async function getPage<K extends ListRoute>(
  route: K,
  ...from: From<K>
): Promise<{ items: Answer<K>; next: string | undefined }> {
  const { body, next } = await getPageBody(route, ...from);
  return { items: body, next };
}

/** Every page of a list (at most `maxPages`), following each page's Link to the next. */
export async function getAll<K extends ListRoute>(
  route: K,
  o?: RouteRequest<K>,
  maxPages = 100,
): Promise<Answer<K>[number][]> {
  const out: Answer<K>[number][] = [];
  let page = await getPage(route, ...([o] as Args<K>));
  out.push(...page.items);
  for (let n = 1; page.next && n < maxPages; n++) {
    page = await getPage(route, { next: page.next });
    out.push(...page.items);
  }
  return out;
}

/** POST raw bytes (a photo) to a route, their type as the content type. */
export async function postBytes<K extends PostRoute>(
  route: K,
  o: RouteRequest<K>,
  bytes: Blob,
): Promise<Answer<K>> {
  return (await request('POST', pathOf(route, o as Sent), { bytes })) as Answer<K>;
}

const seconds = (sec: number) => (sec >= 90 ? `${Math.ceil(sec / 60)} min` : `${sec} s`);

const article = (role: string) => (/^[aeiou]/i.test(role) ? `an ${role}` : `a ${role}`);

/**
 * What each of the gateway's error codes means for the person at the keyboard (the code itself is for
 * scripts and the logs: it stays out of the words).
 */
const MEANINGS: Record<string, string | ((e: ApiError) => string)> = {
  UNAUTHORIZED:
    'You are not signed in, or your session has ended. Sign in (or enter a valid API token) and try again.',
  FORBIDDEN: (e) => {
    const m = /needs the (\w+) role; you have (\w+)/.exec(e.message);
    return m
      ? `Your role may not do this: it needs the ${m[1]} role, and you are signed in as ${article(m[2] ?? '')}.`
      : 'Your role may not do this.';
  },
  NOT_FOUND: 'Not found: it may have been removed, or it is not one you may see.',
  UNKNOWN_SITE: 'There is no such site, or it is not one you may see.',
  ALREADY_RESOLVED: 'This alert is already resolved.',
  ALREADY_ACKNOWLEDGED: 'This alert is already acknowledged.',
  NOTE_REQUIRED: 'A note is required: say what was done, and by whom.',
  BAD_EXTENSION: (e) =>
    /allows no extension/.test(e.message)
      ? 'This deadline cannot be extended: the law sets it.'
      : /no deadline/.test(e.message)
        ? 'This alert has no deadline to extend.'
        : "The extension was not recorded: the new due time must be later than the current one and within a year of the rule's deadline, with the engineer and the letter reference.",
  BAD_INSPECTION:
    'The inspection was not recorded: check its time (not in the future, not years ago), the inspector and the kind.',
  STILL_ACTIVE: 'The device still reports the alarm.',
  BAD_REQUEST: 'Some of what was entered is not valid: check it and try again.',
  CONFLICT: 'That conflicts with what is already recorded (a name or ID is never used twice).',
  EMAIL_TAKEN: 'An account with this e-mail address exists already.',
  TOO_LARGE: (e) =>
    /at most \d+ KB/.test(e.message)
      ? `That is too large to send: ${e.message.replace(/^the request is /, 'it is ')}.`
      : 'That is too large to send.',
  BAD_CURSOR: 'The list could not go on from where it was: show it again from the start.',
  READ_ONLY:
    "Nothing can be saved just now: the gateway's store is read-only. Tell whoever runs the gateway.",
  UNAVAILABLE: 'This is not available on this gateway.',
  REPORTS_BUSY: 'The gateway is building other reports and documents: try again in a few seconds.',
  SETUP_USED: 'This setup link is used up, expired or wrong.',
  CSRF: "The page's security check failed: reload the page and try again.",
};

/** A message the gateway wrote for people: a sentence, with no code or field name in it. */
const isSentence = (m: string) => /^[A-Z][^_{}]*[.!?]$/.test(m) && !/\b[a-z]+[A-Z]\w*\b/.test(m);

/**
 * A sentence for an error, naming what the user can do about it: words, never the API's code (that is
 * in `errorDetail`).
 */
export function describeError(e: unknown) {
  if (e instanceof ApiError) {
    if (e.status === 429)
      return `Too many attempts.${e.retryAfterSec ? ` Try again in ${seconds(e.retryAfterSec)}.` : ' Wait a little and try again.'}`;
    const meaning = MEANINGS[e.code];
    if (meaning) return typeof meaning === 'function' ? meaning(e) : meaning;
    if (isSentence(e.message)) return e.message;
    if (e.status === 401) return MEANINGS.UNAUTHORIZED as string;
    if (e.status === 403) return 'Your role may not do this.';
    if (e.status === 404) return MEANINGS.NOT_FOUND as string;
    if (e.status >= 500)
      return 'The gateway could not do this just now. Try again; if it goes on, tell whoever runs the gateway.';
    return 'The gateway refused this request. Check what was entered and try again.';
  }
  if (e instanceof TypeError) return 'The gateway cannot be reached: check the connection and try again.';
  return e instanceof Error ? e.message : String(e);
}

/** The technical side of an error (status, code, the gateway's message), for a tooltip or a report. */
export function errorDetail(e: unknown) {
  if (e instanceof ApiError) return `HTTP ${e.status} ${e.code}: ${e.message}`;
  return e instanceof Error ? e.message : String(e);
}
