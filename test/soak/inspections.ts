/**
 * `npm run soak:inspections -- [count]` (default 300): an account that may record inspections at a
 * construction site posts `count` inspections of the largest size the API accepts (the inspector's name,
 * the notes and every finding's note at their maximum lengths, as many findings as the site has practices,
 * up to the most an inspection may have), then asks for what the dashboard's Alerts page asks (the first
 * page of alerts, and every further page), and every other list page by page. Before the inputs were
 * bounded, 120 inspections with a 240 KB inspector's name grew the store by 344 MB and `GET /api/alerts`
 * then ran the 128 MB heap out, on every restart.
 *
 * Prints the figures (the store's growth in all and per inspection, the largest body sent, the gateway's
 * peak resident memory and V8 heap, the pages read) and exits 1 if the gateway died, an inspection of the
 * largest size was refused, one just over it was accepted, a list answered anything but 200, or resident
 * memory passed RSS_BOUND_MB. It then starts the gateway again on the same store and reads the alerts
 * once more (the break ran the heap out on every restart). `--inspector-chars N` (and `--count`) send
 * inspections of another size, `--root <dir>` runs another checkout's bundle: to measure an older gateway. The suite runs a short version (test/e2e/inspectionBounds.test.ts).
 */
import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PRACTICES_MAX } from '../../shared/src/api/findings.ts';
import { type GatewayChild, startGatewayChild } from '../helpers/child.ts';
import { metrics, metricValue, sleep } from '../helpers/faults.ts';
import { LIST_PATHS, largestInspection, readAllPages } from './inspectionsSupport.ts';

/** The bound on the gateway's resident memory: its 128 MB heap, the SQLite cache and Node's own. */
export const RSS_BOUND_MB = 350;
const sha = (t: string) => createHash('sha256').update(t).digest('hex');
export const INSPECTOR_TOKEN = 'tok-owner';
export const ADMIN_TOKEN = 'tok-admin';
export const PRACTICES = PRACTICES_MAX;

export function inspectionsConfig() {
  return {
    gatewayId: 'inspections',
    sites: [
      {
        id: 'maple-ridge',
        name: 'Maple Ridge',
        kind: 'construction',
        timezone: 'America/New_York',
        practices: Array.from({ length: PRACTICES }, (_, i) => ({
          id: `p-${i}`,
          label: `Silt fence, section ${i}`,
          kind: 'silt-fence',
        })),
        devices: [],
      },
    ],
    auth: {
      tokens: [
        { name: 'Owen Owner', role: 'inspector', tokenSha256: sha(INSPECTOR_TOKEN) },
        { name: 'Ada Admin', role: 'admin', tokenSha256: sha(ADMIN_TOKEN) },
      ],
    },
  };
}

export interface InspectionFigures {
  count: number;
  accepted: number;
  bodyBytes: number;
  storeMb: { before: number; after: number; perInspectionKb: number };
  rssMb: { start: number; peak: number; end: number };
  heapUsedMb: { peak: number; end: number };
  pages: Record<string, { pages: number; items: number }>;
  oversizeStatus?: number;
  problems: string[];
}

/** Bytes of every file under a directory. */
export function dirBytes(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    n += e.isDirectory() ? dirBytes(p) : statSync(p).size;
  }
  return n;
}

/** Why a gateway process ended, from its output: V8's heap message, or the output's end. */
const whyDied = (gw: GatewayChild) =>
  /FATAL ERROR:[^\n]*|JavaScript heap out of memory/.exec(gw.output())?.[0] ?? gw.output().slice(-500);

const mb = (b: number) => Math.round(b / 104_857.6) / 10;

export async function inspectionsSoak(
  gw: GatewayChild,
  count: number,
  o: { inspectorChars?: number; lists?: readonly string[] } = {},
): Promise<InspectionFigures> {
  const problems: string[] = [];
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const post = (body: unknown) =>
    fetch(`${gw.httpUrl}/api/inspections`, {
      method: 'POST',
      headers: { authorization: `Bearer ${INSPECTOR_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const rss = { start: gw.rssMb(), peak: 0, end: 0 };
  const heap = { peak: 0, end: 0 };
  let done = false;
  const watcher = (async () => {
    while (!done && gw.alive()) {
      rss.peak = Math.max(rss.peak, gw.rssMb());
      const text = await metrics(gw.httpUrl, admin).catch(() => '');
      heap.peak = Math.max(heap.peak, metricValue(text, 'nodejs_memory_bytes', 'kind="heapUsed"'));
      await sleep(100);
    }
  })();
  const storeBefore = dirBytes(gw.dataDir);
  let accepted = 0;
  let bodyBytes = 0;
  let oversizeStatus: number | undefined;
  const pages: InspectionFigures['pages'] = {};
  try {
    const now = Date.now();
    for (let i = 0; i < count && gw.alive(); i++) {
      const body = largestInspection('maple-ridge', new Date(now - (count - i) * 60_000), PRACTICES, i, o);
      bodyBytes = Math.max(bodyBytes, Buffer.byteLength(JSON.stringify(body)));
      const r = await post(body).catch((e: Error) => ({ status: 0, text: async () => e.message }));
      if (r.status === 201) accepted++;
      else problems.push(`inspection ${i}: ${r.status} ${(await r.text()).slice(0, 300)}`);
      if (problems.length > 5) break;
    }
    if (o.inspectorChars === undefined && gw.alive()) {
      // One character over the inspector's bound: refused with a 4xx, in words.
      const over = largestInspection('maple-ridge', new Date(now), PRACTICES, count, { overBy: 1 });
      const r = await post(over);
      oversizeStatus = r.status;
      const text = await r.text();
      if (r.status < 400 || r.status >= 500)
        problems.push(`an inspection over the bounds answered ${r.status}`);
      else if (!/at most|too large/i.test(text)) problems.push(`the refusal does not say why: ${text}`);
    }
    for (const path of o.lists ?? LIST_PATHS) {
      if (!gw.alive()) break;
      const r = await readAllPages(gw.httpUrl, path, admin).catch((e: Error) => {
        problems.push(`${path}: ${e.message}`);
        return undefined;
      });
      if (r) pages[path] = r;
    }
  } finally {
    done = true;
    await watcher;
  }
  if (!gw.alive()) problems.push(`the gateway died: ${whyDied(gw)}`);
  rss.end = gw.rssMb();
  heap.end = metricValue(
    await metrics(gw.httpUrl, admin).catch(() => ''),
    'nodejs_memory_bytes',
    'kind="heapUsed"',
  );
  if (rss.peak > RSS_BOUND_MB) problems.push(`resident memory ${rss.peak} MB, over ${RSS_BOUND_MB} MB`);
  const storeAfter = dirBytes(gw.dataDir);
  return {
    count,
    accepted,
    bodyBytes,
    storeMb: {
      before: mb(storeBefore),
      after: mb(storeAfter),
      perInspectionKb: accepted ? Math.round((storeAfter - storeBefore) / accepted / 1024) : 0,
    },
    rssMb: rss,
    heapUsedMb: { peak: mb(heap.peak), end: mb(heap.end) },
    pages,
    ...(oversizeStatus !== undefined ? { oversizeStatus } : {}),
    problems,
  };
}

function flag(name: string): number | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : undefined;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const positional =
    process.argv[2] && !process.argv[2].startsWith('--') ? Number(process.argv[2]) : undefined;
  const count = flag('count') ?? positional ?? 300;
  const inspectorChars = flag('inspector-chars');
  (async () => {
    const env = { LOG_LEVEL: 'error' };
    // `--root <dir>`: the bundle of another checkout (an older gateway, to measure the break).
    const r = process.argv.indexOf('--root');
    const root = r > 0 ? { root: process.argv[r + 1]! } : {};
    const gw = await startGatewayChild(inspectionsConfig(), { bundle: true, env, ...root });
    try {
      const f = await inspectionsSoak(gw, count, inspectorChars !== undefined ? { inspectorChars } : {});
      // The break ran the heap out on every restart: start again on the same store and read the alerts.
      await gw.stop();
      const again = await startGatewayChild(inspectionsConfig(), {
        bundle: true,
        env,
        dataDir: gw.dataDir,
      }).catch((e: Error) => {
        f.problems.push(`the gateway did not start again: ${e.message.slice(0, 500)}`);
        return undefined;
      });
      if (again) {
        const alerts = await readAllPages(again.httpUrl, '/api/alerts', {
          authorization: `Bearer ${ADMIN_TOKEN}`,
        }).catch((e: Error) => {
          f.problems.push(`after a restart, /api/alerts: ${e.message}`);
          return undefined;
        });
        if (alerts) f.pages['/api/alerts after a restart'] = alerts;
        // A process that ran out of heap has ended by the time its exit is seen, a moment after.
        if (f.problems.length > 0) await Promise.race([again.exited, sleep(2000)]);
        if (!again.alive()) f.problems.push(`the gateway died after a restart: ${whyDied(again)}`);
        await again.cleanup();
      }
      return f;
    } finally {
      await gw.cleanup();
    }
  })().then(
    (f) => {
      console.log(JSON.stringify(f, null, 2));
      process.exitCode = f.problems.length ? 1 : 0;
    },
    (e: unknown) => {
      console.error(e);
      process.exitCode = 1;
    },
  );
}
