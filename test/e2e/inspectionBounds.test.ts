/**
 * The break of issue 31 against a real gateway process with the heap `npm start` gives it (128 MB): an
 * account that records inspections posts the largest inspections the schemas allow; larger ones (an
 * inspector's name of 240 KB, as the break sent; a name one character over; a body over the route's
 * limit) are refused with a 4xx in words, never stored; then every list is read page by page, and the
 * process stays up. The long form is `npm run soak:inspections` (test/soak/inspections.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayChild, startGatewayChild } from '../helpers/child.ts';
import { INSPECTOR_TOKEN, inspectionsConfig, inspectionsSoak } from '../soak/inspections.ts';
import { INSPECTION_BOUNDS, largestInspection, text } from '../soak/inspectionsSupport.ts';

describe('the largest inspections, and the lists after them (issue 31)', () => {
  let gw: GatewayChild;
  const post = (body: unknown) =>
    fetch(`${gw.httpUrl}/api/inspections`, {
      method: 'POST',
      headers: { authorization: `Bearer ${INSPECTOR_TOKEN}`, 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const count = async () =>
    ((await (await fetch(`${gw.httpUrl}/api/inspections?limit=500`)).json()) as unknown[]).length;

  beforeAll(async () => {
    gw = await startGatewayChild(inspectionsConfig(), { env: { LOG_LEVEL: 'error' } });
  }, 90_000);
  afterAll(() => gw?.cleanup());

  it('refuses larger ones in words, with a 4xx, and stores none of them', async () => {
    expect(INSPECTION_BOUNDS).toEqual({ inspector: 200, notes: 10_000, findings: 100, findingNote: 1000 });
    const at = new Date(Date.now() - 3_600_000);
    const before = await count();
    // The break: a 240 KB inspector's name.
    const huge = await post(largestInspection('maple-ridge', at, 100, 1, { inspectorChars: 240_000 }));
    expect(huge.status).toBe(400);
    expect(((await huge.json()) as { message: string }).message).toMatch(
      /inspector: at most 200 characters: shorten it/,
    );
    // One character over.
    const over = await post(largestInspection('maple-ridge', at, 100, 2, { overBy: 1 }));
    expect(over.status).toBe(400);
    // A body over the route's limit is refused before it is read, saying the most the form takes.
    const body = JSON.stringify({
      ...largestInspection('maple-ridge', at, 100, 3),
      notes: text(1_000_000, 3),
    });
    const big = await post(body);
    expect(big.status).toBe(413);
    const refusal = (await big.json()) as { error: string; message: string };
    expect(refusal.error).toBe('TOO_LARGE');
    expect(refusal.message).toMatch(/at most \d+ KB/);
    expect(await count()).toBe(before);
  });

  it('takes the largest allowed, then reads every list page by page, and stays up', async () => {
    const f = await inspectionsSoak(gw, 25);
    expect(f.problems).toEqual([]);
    expect(f.accepted).toBe(25);
    expect(f.oversizeStatus).toBe(400);
    // Each inspection is about 110,000 characters: a bounded body, not megabytes.
    expect(f.bodyBytes).toBeLessThan(600 * 1024);
    expect(f.pages['/api/inspections']?.items).toBe(25);
    expect(f.pages['/api/alerts']?.pages).toBeGreaterThanOrEqual(1);
    expect(gw.alive()).toBe(true);
    const health = await fetch(`${gw.httpUrl}/api/health`);
    expect(health.status).toBe(200);
  }, 240_000);
});
