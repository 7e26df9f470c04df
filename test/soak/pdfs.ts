/**
 * `npm run soak:pdfs -- [rounds]` (default 5): 20 requests at once for a notice of violation as a PDF
 * (any reader of the site may ask), `rounds` times, against the gateway process with the default queue
 * (`reports.concurrent`, `reports.waiting`). Before notice PDFs took their turn in the one job queue, 20
 * at once started 21 Chromium prints, 1.8 GB, 22 s. Prints the figures (the most prints at once, the peak
 * memory of the gateway with its children, PDFs served and refused, the slowest round) and exits 1 if more
 * prints ran than the queue's places (the tree's memory is the sum of its processes' resident memory,
 * Chromium's shared pages counted in each), a refusal was not 503 with Retry-After, or the gateway died. The
 * suite runs one round (test/e2e/noticePdfs.test.ts).
 */
import { createHash } from 'node:crypto';
import { startGatewayChild } from '../helpers/child.ts';
import { watchPrints } from '../helpers/prints.ts';
import { printFigures } from './main.ts';

const AT_ONCE = 20;
const DAY = 86_400_000;
const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const insp = { authorization: 'Bearer tok-insp', 'content-type': 'application/json' };

export interface PdfFigures {
  rounds: number;
  peakPrints: number;
  peakTreeRssMb: number;
  served: number;
  refused: number;
  slowestRoundSec: number;
  problems: string[];
}

export async function pdfsSoak(rounds: number, running = 1): Promise<PdfFigures> {
  const gw = await startGatewayChild(
    {
      gatewayId: 'pdfs',
      reports: { concurrent: running },
      sites: [
        {
          id: 'maple-ridge',
          name: 'Maple Ridge',
          kind: 'construction',
          timezone: 'America/New_York',
          landowner: { name: 'Pat Landowner', address: '1 Elm St, Chester NY' },
          developer: { name: 'Ridge Builders LLC', address: '9 Main St, Chester NY' },
          address: 'Lot 12, Maple Ridge Road',
          devices: [],
        },
      ],
      auth: { tokens: [{ name: 'Ian Inspector', role: 'inspector', tokenSha256: sha('tok-insp') }] },
    },
    { bundle: true, env: { LOG_LEVEL: 'error' } },
  );
  const problems: string[] = [];
  try {
    const r = await fetch(`${gw.httpUrl}/api/violations`, {
      method: 'POST',
      headers: insp,
      body: JSON.stringify({
        siteId: 'maple-ridge',
        nature: 'Silt fence along the east boundary is down; sediment leaves the site.',
        remedy: 'Re-install and re-trench the silt fence along the east boundary.',
        remedyDueAt: new Date(Date.now() + 7 * DAY).toISOString(),
      }),
    });
    if (r.status !== 201) throw new Error(`the notice was not issued: ${r.status} ${await r.text()}`);
    const { id } = (await r.json()) as { id: string };
    const watch = watchPrints(gw.pid);
    let served = 0;
    let refused = 0;
    let slowest = 0;
    for (let k = 0; k < rounds; k++) {
      const t = performance.now();
      const answers = await Promise.all(
        Array.from({ length: AT_ONCE }, async () => {
          const a = await fetch(`${gw.httpUrl}/api/violations/${id}/document?format=pdf`);
          await a.arrayBuffer();
          return { status: a.status, retryAfter: a.headers.get('retry-after') };
        }),
      );
      slowest = Math.max(slowest, (performance.now() - t) / 1000);
      for (const a of answers) {
        if (a.status === 200) served++;
        else {
          refused++;
          if (a.status !== 503 || !a.retryAfter)
            problems.push(`a refusal without 503 and Retry-After: ${a.status}`);
        }
      }
    }
    const { peakPrints, peakTreeRssKb } = watch.stop();
    if (peakPrints > running) problems.push(`${peakPrints} prints at once, over ${running}`);
    if (!gw.alive()) problems.push('the gateway exited');
    return {
      rounds,
      peakPrints,
      peakTreeRssMb: Math.round(peakTreeRssKb / 1024),
      served,
      refused,
      slowestRoundSec: Math.round(slowest * 10) / 10,
      problems,
    };
  } finally {
    await gw.cleanup();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printFigures(() => pdfsSoak(Number(process.argv[2] ?? 5)));
}
