/**
 * Reads need a signed-in person or a token (the gateway's default): a test gateway (`gateway.ts`) holds a
 * viewer token, and a read (GET or HEAD) by `fetch` of it (and `openFeed`, sse.ts) carries that token
 * unless the request brings its own Authorization or Cookie header. A test about what a visitor without credentials gets uses
 * `fetchAnonymous`.
 */
import { createHash } from 'node:crypto';

/** The viewer token every test gateway holds (a configured token, stored as its SHA-256). */
export const TEST_VIEWER_TOKEN = 'test-viewer-token';
/** The headers of a request (a browser page's, a tab's) made as the test viewer. */
export const VIEWER_HEADERS = { authorization: `Bearer ${TEST_VIEWER_TOKEN}` };
export const testViewerToken = {
  name: 'Test viewer',
  role: 'viewer' as const,
  tokenSha256: createHash('sha256').update(TEST_VIEWER_TOKEN).digest('hex'),
};

/** `fetch` as the platform has it: no token added. */
export const fetchAnonymous: typeof fetch = globalThis.fetch.bind(globalThis);

const gateways = new Set<string>();

/** Requests to this gateway's URL carry the viewer token from now on (until `forgetGateway`). */
export function carryViewerToken(httpUrl: string): void {
  gateways.add(httpUrl);
}
export function forgetGateway(httpUrl: string): void {
  gateways.delete(httpUrl);
}

function urlOf(input: Parameters<typeof fetch>[0]): string {
  return typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
}

/** Whether a URL is a test gateway's (its origin, then a path, a query or nothing). */
function toTestGateway(url: string): boolean {
  return [...gateways].some((g) => url.startsWith(g) && /^([/?#]|$)/.test(url.slice(g.length)));
}

/**
 * The headers of a request to `url`, with the viewer token added when it goes to a test gateway and
 * brings neither an Authorization nor a Cookie header nor an `access_token` (live feed) of its own.
 */
export function withViewerToken(url: string, headers: Headers): Headers {
  const own = headers.has('authorization') || headers.has('cookie') || /[?&]access_token=/.test(url);
  if (!own && toTestGateway(url)) headers.set('authorization', `Bearer ${TEST_VIEWER_TOKEN}`);
  return headers;
}

globalThis.fetch = (input, init) => {
  const url = urlOf(input);
  const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
  // Reads only: a write always needed credentials, and a test of one without them means it.
  if (!toTestGateway(url) || (method !== 'GET' && method !== 'HEAD')) return fetchAnonymous(input, init);
  const headers = new Headers(input instanceof Request ? input.headers : undefined);
  for (const [k, v] of new Headers(init?.headers)) headers.set(k, v);
  return fetchAnonymous(input, { ...init, headers: withViewerToken(url, headers) });
};
