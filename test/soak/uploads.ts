/**
 * `npm run soak:uploads -- [uploads] [mb]` (default 50 uploads of 10 MB): that many photo uploads at once
 * (POST /api/photos?siteId=…, each body sent with its Content-Length in 64 KB writes) against the built
 * gateway (dist/gateway.mjs), while /api/health is asked every 20 ms and the process's resident memory
 * read every 20 ms. Prints the event loop's delay during the load (max and p99, from
 * `nodejs_eventloop_delay_seconds`, reset by a scrape just before), /api/health's slowest answer, the
 * peak RSS, and the uploads stored and refused (503 with Retry-After beyond the upload places); exits 1
 * when the event loop's delay passed 100 ms, a refusal was not 503 with Retry-After, or the gateway died.
 * Before uploads were streamed, 50 of 10 MB held /api/health for 11.2 s and RSS went from 303 to 486 MB.
 * The suite runs a short form (test/e2e/photoUploads.test.ts).
 */
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { onBundledGateway, printFigures } from './main.ts';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const MB = 1024 * 1024;
export const LAG_BOUND_MS = 100;

/** A JPEG-signed body of `bytes`, unique by `tag`, written in 64 KB pieces without holding it whole. */
function send(
  url: string,
  path: string,
  bytes: number,
  tag: string,
  headers: Record<string, string>,
): Promise<{ status: number; retryAfter: string | undefined; body: string }> {
  const head = Buffer.concat([
    Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]),
    Buffer.from(`JFIF ${tag} `),
  ]);
  const piece = Buffer.alloc(64 * 1024, 0x5a);
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      {
        method: 'POST',
        headers: { 'content-type': 'image/jpeg', 'content-length': String(bytes), ...headers },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          body += d;
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: res.headers['retry-after'] as string | undefined,
            body,
          }),
        );
      },
    );
    // An answer before the body is all sent (a refusal) ends the sending.
    let answered = false;
    req.on('response', () => {
      answered = true;
    });
    req.on('error', (e) => (answered ? undefined : reject(e)));
    let sent = 0;
    const more = () => {
      while (sent < bytes && !answered) {
        const chunk = sent === 0 ? head : piece.subarray(0, Math.min(piece.length, bytes - sent));
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', more);
      }
      req.end();
    };
    more();
  });
}

export interface UploadFigures {
  uploads: number;
  mb: number;
  stored: number;
  refusedBusy: number;
  otherAnswers: string[];
  lagMaxMs: number;
  lagP99Ms: number;
  healthSlowestMs: number;
  rssBeforeMb: number;
  rssPeakMb: number;
  seconds: number;
  problems: string[];
}

const metricOf = (text: string, line: string) => {
  const m = text.split('\n').find((l) => l.startsWith(line));
  return m ? Number(m.split(' ').pop()) : 0;
};

/**
 * `uploads` photos of `mb` MB at once to a running gateway at `url` (token `tok-insp` an inspector, site
 * `maple-ridge`; `tok-admin` reads /metrics), with /api/health polled; `rss` reads the process's memory.
 */
export async function uploadLoad(
  url: string,
  uploads: number,
  mb: number,
  rss: () => number,
  tag = String(Date.now()),
): Promise<UploadFigures> {
  const admin = { authorization: 'Bearer tok-admin' };
  const scrape = async () => (await fetch(`${url}/metrics`, { headers: admin })).text();
  const problems: string[] = [];
  // What the start set going (the dashboard's bundle, the evidence audit) is over before the load.
  for (let i = 0; i < 40; i++) {
    await scrape();
    await new Promise((r) => setTimeout(r, 250));
    if (metricOf(await scrape(), 'nodejs_eventloop_delay_seconds{percentile="max"}') < 0.05) break;
  }
  const rssBeforeMb = rss();
  let rssPeakMb = rssBeforeMb;
  let healthSlowestMs = 0;
  let running = true;
  const health = (async () => {
    while (running) {
      const t = performance.now();
      const r = await fetch(`${url}/api/health`);
      await r.arrayBuffer();
      healthSlowestMs = Math.max(healthSlowestMs, performance.now() - t);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const memory = setInterval(() => {
    rssPeakMb = Math.max(rssPeakMb, rss());
  }, 20);
  await scrape(); // starts the delay's measure afresh
  const t0 = performance.now();
  const answers = await Promise.all(
    Array.from({ length: uploads }, (_, i) =>
      send(url, '/api/photos?siteId=maple-ridge', Math.round(mb * MB), `${tag}-${i}`, {
        authorization: 'Bearer tok-insp',
      }).catch((e: Error) => ({ status: 0, retryAfter: undefined, body: e.message })),
    ),
  );
  const seconds = (performance.now() - t0) / 1000;
  const m = await scrape();
  running = false;
  await health;
  clearInterval(memory);
  let stored = 0;
  let refusedBusy = 0;
  const otherAnswers: string[] = [];
  for (const a of answers) {
    if (a.status === 200) stored++;
    else if (a.status === 503 && a.retryAfter) refusedBusy++;
    else otherAnswers.push(`${a.status} ${a.body.slice(0, 200)}`);
  }
  const lagMaxMs = metricOf(m, 'nodejs_eventloop_delay_seconds{percentile="max"}') * 1000;
  const lagP99Ms = metricOf(m, 'nodejs_eventloop_delay_seconds{percentile="p99"}') * 1000;
  if (lagMaxMs > LAG_BOUND_MS)
    problems.push(`the event loop was held ${Math.round(lagMaxMs)} ms, over ${LAG_BOUND_MS} ms`);
  if (otherAnswers.length) problems.push(`${otherAnswers.length} answers neither stored nor 503 busy`);
  const round = (n: number) => Math.round(n * 10) / 10;
  return {
    uploads,
    mb,
    stored,
    refusedBusy,
    otherAnswers: otherAnswers.slice(0, 5),
    lagMaxMs: round(lagMaxMs),
    lagP99Ms: round(lagP99Ms),
    healthSlowestMs: round(healthSlowestMs),
    rssBeforeMb,
    rssPeakMb,
    seconds: round(seconds),
    problems,
  };
}

/** The soak's gateway: one construction site, an inspector's and an admin's token. */
export function uploadsConfig(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    gatewayId: 'uploads',
    sites: [{ id: 'maple-ridge', name: 'Maple Ridge', kind: 'construction', devices: [] }],
    auth: {
      tokens: [
        { name: 'Ian Inspector', role: 'inspector', tokenSha256: sha('tok-insp') },
        { name: 'Ada Admin', role: 'admin', tokenSha256: sha('tok-admin') },
      ],
    },
    ...extra,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const uploads = Number(process.argv[2] ?? 50);
  const mb = Number(process.argv[3] ?? 10);
  printFigures(() =>
    onBundledGateway(uploadsConfig(), async (gw) => {
      const f = await uploadLoad(gw.httpUrl, uploads, mb, gw.rssMb);
      if (!gw.alive()) f.problems.push('the gateway exited');
      return f;
    }),
  );
}
