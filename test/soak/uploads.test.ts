import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayChild, startGatewayChild } from '../helpers/child.ts';
import { LAG_BOUND_MS, uploadLoad, uploadsConfig } from './uploads.ts';

describe('the uploads soak, short (`npm run soak:uploads` for 50 at once)', () => {
  let gw: GatewayChild;
  beforeAll(async () => {
    gw = await startGatewayChild(uploadsConfig(), { env: { LOG_LEVEL: 'error' } });
  });
  afterAll(async () => {
    await gw?.cleanup();
  });

  it('receives 10 photos of 10 MB at once without holding the event loop or the memory', async () => {
    const f = await uploadLoad(gw.httpUrl, 10, 10, gw.rssMb);
    expect(f.problems).toEqual([]);
    // 4 received at once and 32 waiting by default: all ten are stored.
    expect(f.stored).toBe(10);
    expect(f.lagMaxMs).toBeLessThan(LAG_BOUND_MS);
    // Streamed, not buffered: far less than the 100 MB sent.
    expect(f.rssPeakMb - f.rssBeforeMb).toBeLessThan(60);
    expect(gw.alive()).toBe(true);
  }, 120_000);
});
