/**
 * `npm run soak:feeds -- [feeds]` (default 12,000): viewer tokens ask for live feeds (`GET /api/events`)
 * until `feeds` have been asked for, 400 at a time, holding every one they get. Before the caps one viewer
 * token exhausted the 128 MB heap with about 10,750 feeds; now at most `http.liveFeedsPerAccount` a token
 * and `http.liveFeeds` in all are open, the rest refused at once with 429 and Retry-After. Prints the
 * figures (open, refused by reason, the slowest /api/health during the run, resident memory) and exits 1
 * if the gateway died, a cap was passed, a refusal had no Retry-After, or the places were not all free
 * once the feeds closed. The suite tests the caps themselves (test/api/plugins/liveFeeds.test.ts).
 */
import { createHash } from 'node:crypto';
import { startGatewayChild } from '../helpers/child.ts';
import { faultConfig, metrics, metricValue, sleep } from '../helpers/faults.ts';
import { FeedRefused, type LiveFeed, openFeed } from '../helpers/sse.ts';
import { printFigures } from './main.ts';

const TOKENS = 100;
const AT_ONCE = 400;
const PER_ACCOUNT = 8;
const TOTAL = 500;
const sha = (t: string) => createHash('sha256').update(t).digest('hex');

export interface FeedFigures {
  asked: number;
  open: number;
  refused: Record<string, number>;
  healthMaxMs: number;
  /** The gateway's event-loop delay over the burst (nodejs_eventloop_delay_seconds), ms. */
  loopDelayMs: { p99: number; max: number };
  rssMb: { start: number; max: number; end: number };
  problems: string[];
}

export async function feedsSoak(asked: number): Promise<FeedFigures> {
  const gw = await startGatewayChild(
    faultConfig({
      http: { liveFeeds: TOTAL, liveFeedsPerAccount: PER_ACCOUNT },
      auth: {
        tokens: Array.from({ length: TOKENS }, (_, i) => ({
          name: `Viewer ${i}`,
          role: 'viewer',
          tokenSha256: sha(`tok-${i}`),
        })),
      },
    }),
    { bundle: true, env: { LOG_LEVEL: 'error' } },
  );
  const held: LiveFeed[] = [];
  const refused: Record<string, number> = {};
  const problems: string[] = [];
  const rss = { start: gw.rssMb(), max: 0, end: 0 };
  let healthMaxMs = 0;
  let done = false;
  const prober = (async () => {
    while (!done) {
      const t = performance.now();
      const r = await fetch(`${gw.httpUrl}/api/health`).catch(() => undefined);
      if (!r) problems.push('/api/health did not answer');
      healthMaxMs = Math.max(healthMaxMs, performance.now() - t);
      rss.max = Math.max(rss.max, gw.rssMb());
      await sleep(200);
    }
  })();
  const auth = { authorization: 'Bearer tok-0' };
  await metrics(gw.httpUrl, auth); // starts the event-loop delay afresh
  try {
    let next = 0;
    const lane = async () => {
      while (next < asked) {
        const i = next++;
        try {
          held.push(
            await openFeed(`${gw.httpUrl}/api/events`, { authorization: `Bearer tok-${i % TOKENS}` }),
          );
        } catch (e) {
          if (!(e instanceof FeedRefused)) throw e;
          const reason = (JSON.parse(e.body) as { error?: string }).error ?? String(e.status);
          refused[reason] = (refused[reason] ?? 0) + 1;
          if (e.status !== 429 || !e.retryAfter)
            problems.push(`a refusal without 429 and Retry-After: ${e.status}`);
        }
      }
    };
    await Promise.all(Array.from({ length: AT_ONCE }, lane));
    const m = await metrics(gw.httpUrl, auth);
    const ms = (q: string) =>
      Math.round(metricValue(m, 'nodejs_eventloop_delay_seconds', `percentile="${q}"`) * 1000);
    const loopDelayMs = { p99: ms('p99'), max: ms('max') };
    const openNow = metricValue(m, 'gateway_live_feeds');
    if (held.length > TOTAL || openNow > TOTAL) problems.push(`${held.length} feeds open, over ${TOTAL}`);
    if (!gw.alive()) problems.push('the gateway exited');
    for (const f of held) f.close();
    let left = openNow;
    for (let k = 0; k < 100 && left > 0; k++) {
      await sleep(100);
      left = metricValue(await metrics(gw.httpUrl, auth), 'gateway_live_feeds');
    }
    if (left > 0) problems.push(`${left} places still taken once every feed closed`);
    rss.end = gw.rssMb();
    return {
      asked,
      open: held.length,
      refused,
      healthMaxMs: Math.round(healthMaxMs),
      loopDelayMs,
      rssMb: rss,
      problems,
    };
  } finally {
    done = true;
    await prober;
    await gw.cleanup();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printFigures(() => feedsSoak(Number(process.argv[2] ?? 12_000)));
}
