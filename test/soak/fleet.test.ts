import { describe, expect, it } from 'vitest';
import { fleetSoak } from './fleet.ts';

describe('the fleet soak, short (`npm run soak:fleet -- 60` for an hour of 10,000 devices)', () => {
  it('stores every acknowledged reading of 2,000 devices at a steady rate, memory and handles flat', async () => {
    const f = await fleetSoak({ minutes: 0.5, devices: 2000, ratePerSec: 400, sampleSeconds: 3 });
    expect(f.problems).toEqual([]);
    expect(f.errors).toBe(0);
    // At the rate asked for (the first seconds go to logins and the devices' first readings).
    expect(f.acked).toBeGreaterThan(400 * 30 * 0.6);
    expect(f.stored).toBeGreaterThanOrEqual(f.acked);
    expect(f.samples.length).toBeGreaterThan(5);
  }, 90_000);
});
