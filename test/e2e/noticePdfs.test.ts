/**
 * Notice PDFs take their turn in the gateway's one queue of heavy jobs: 20 requests at once for a notice
 * of violation as a PDF (any reader of the site may ask) start no more Chromium prints than the queue's
 * places (counted from /proc: the gateway's children printing), and each is either served (a PDF) or
 * refused at once with 503, Retry-After and words; afterwards the queue is free again. Before the queue
 * they started 20 prints at once. The long form is `npm run soak:pdfs`.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveBinary, IN_CI } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { watchPrints } from '../helpers/prints.ts';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const T0 = Date.parse('2026-06-10T14:00:00Z');
const DAY = 86_400_000;
const insp = { authorization: 'Bearer tok-insp', 'content-type': 'application/json' };
const RUNNING = 2;
const WAITING = 3;
const AT_ONCE = 20;

describe.skipIf(!haveBinary('chromium') && !IN_CI)('20 notice PDFs at once', { timeout: 240_000 }, () => {
  let gw: TestGateway;
  let id: string;

  beforeAll(async () => {
    gw = await startTestGateway(
      {
        reports: { concurrent: RUNNING, waiting: WAITING },
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
      { now: () => T0 },
    );
    const r = await fetch(`${gw.httpUrl}/api/violations`, {
      method: 'POST',
      headers: insp,
      body: JSON.stringify({
        siteId: 'maple-ridge',
        nature: 'Silt fence along the east boundary is down; sediment leaves the site.',
        remedy: 'Re-install and re-trench the silt fence along the east boundary.',
        remedyDueAt: new Date(T0 + 7 * DAY).toISOString(),
      }),
    });
    expect(r.status).toBe(201);
    id = ((await r.json()) as { id: string }).id;
  }, 60_000);
  afterAll(async () => gw?.cleanup());

  const pdf = async () => {
    const r = await fetch(`${gw.httpUrl}/api/violations/${id}/document?format=pdf`);
    const body = Buffer.from(await r.arrayBuffer());
    return { status: r.status, retryAfter: r.headers.get('retry-after'), body };
  };

  it('start at most the queue’s places of Chromium prints; each is served or refused in words', async () => {
    const watch = watchPrints(process.pid);
    const answers = await Promise.all(Array.from({ length: AT_ONCE }, pdf));
    const { peakPrints } = watch.stop();
    const served = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status !== 200);
    expect(peakPrints).toBeGreaterThanOrEqual(1);
    expect(peakPrints).toBeLessThanOrEqual(RUNNING);
    expect(served.length).toBeGreaterThanOrEqual(RUNNING);
    expect(served.length).toBeLessThanOrEqual(RUNNING + WAITING);
    for (const a of served) expect(a.body.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    for (const a of refused) {
      expect(a.status).toBe(503);
      expect(a.retryAfter).toBe('10');
      expect(JSON.parse(a.body.toString())).toEqual({
        error: 'REPORTS_BUSY',
        message: 'the gateway is building other reports and documents: try again in 10 seconds',
      });
    }
    // The queue's places are free again: the next one is served.
    const next = await pdf();
    expect(next.status).toBe(200);
    const metrics = await (await fetch(`${gw.httpUrl}/metrics`)).text();
    expect(metrics).toContain(`gateway_jobs_total{kind="notice-pdf",outcome="done"} ${served.length + 1}`);
    expect(metrics).toContain(`gateway_jobs_total{kind="notice-pdf",outcome="refused"} ${refused.length}`);
  });
});
