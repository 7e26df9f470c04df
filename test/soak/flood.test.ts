import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayChild, startGatewayChild } from '../helpers/child.ts';
import { floodConfig, floodSoak } from './flood.ts';

describe('the flood soak, short (`npm run soak:flood -- 10` for ten minutes)', () => {
  let gw: GatewayChild;
  beforeAll(async () => {
    gw = await startGatewayChild(floodConfig(), { env: { LOG_LEVEL: 'error' } });
  });
  afterAll(async () => {
    await gw?.cleanup();
  });

  it('stores every acknowledged reading of every device while one floods, and memory stays flat', async () => {
    const f = await floodSoak(gw, 15);
    expect(f.problems).toEqual([]);
    expect(f.invalidSent).toBeGreaterThan(10_000);
    expect(f.othersStored).toBeGreaterThan(100);
    expect(f.rejectionRows).toBeLessThanOrEqual(4 * 5 * 2);
  }, 60_000);
});
