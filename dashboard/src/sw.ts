/**
 * The dashboard's service worker (served as `/sw.js`): it keeps a copy of the page itself (the HTML, the
 * script, the stylesheets) so that the page opens in the field without a connection, and shows the
 * inspections waiting on the phone. The API is never answered from a copy: its requests go to the
 * gateway as they are. The page is always fetched fresh when the gateway can be reached; the copy is
 * only for when it cannot.
 */

/** What this worker uses of the service worker's scope (the DOM's types do not have it). */
interface ExtendableEvent extends Event {
  waitUntil(p: Promise<unknown>): void;
}
interface FetchEvent extends ExtendableEvent {
  request: Request;
  respondWith(r: Promise<Response>): void;
}
interface WorkerScope {
  location: Location;
  skipWaiting(): Promise<void>;
  clients: { claim(): Promise<void> };
  addEventListener(type: 'install' | 'activate', fn: (e: ExtendableEvent) => void): void;
  addEventListener(type: 'fetch', fn: (e: FetchEvent) => void): void;
}
const scope = self as unknown as WorkerScope;

const CACHE = 'dashboard-page-v1';
/** The page and what it loads: all of it, or the page could open without its script. */
const PAGE = [
  '/',
  '/app.js',
  '/field.js',
  '/style.css',
  '/alerts.css',
  '/inspect.css',
  '/enforcement.css',
  '/src/charts/charts.css',
  '/favicon.svg',
];

/** The chunks a script imports (`./chunks/…`), which the page cannot open without. */
const chunksOf = (code: string): string[] => [
  ...new Set([...code.matchAll(/["']\.\/(chunks\/[\w-]+\.js)["']/g)].map((m) => `/${m[1]}`)),
];
/** Whether a path is one of the page's files: its list, or a chunk of its script. */
const isPage = (path: string) => PAGE.includes(path) || /^\/chunks\/[\w-]+\.js$/.test(path);

async function install(): Promise<void> {
  const c = await caches.open(CACHE);
  await c.addAll(PAGE);
  const app = await c.match('/app.js');
  if (app) await c.addAll(chunksOf(await app.text()));
}

scope.addEventListener('install', (e) => {
  e.waitUntil(install().then(() => scope.skipWaiting()));
});

scope.addEventListener('activate', (e) => {
  e.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
      .then(() => scope.clients.claim()),
  );
});

/** The copy of a request to the page, when the gateway cannot be reached. */
async function fromCopy(req: Request, err: unknown): Promise<Response> {
  const copy = await caches.match(new URL(req.url).pathname);
  if (copy) return copy;
  throw err;
}

scope.addEventListener('fetch', (e) => {
  const url = new URL(e.request.url);
  const own = url.origin === scope.location.origin;
  if (e.request.method !== 'GET' || !own || !isPage(url.pathname)) return;
  e.respondWith(
    fetch(e.request).then(
      async (res) => {
        if (res.ok) {
          const c = await caches.open(CACHE);
          await c.put(url.pathname, res.clone());
        }
        return res;
      },
      (err: unknown) => fromCopy(e.request, err),
    ),
  );
});
