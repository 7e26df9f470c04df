import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GatewayChild, startGatewayChild } from '../helpers/child.ts';
import { oversizeConfig, oversizeSoak } from './oversize.ts';

describe('the oversize soak, short (`npm run soak:oversize -- 1` for a minute)', () => {
  let gw: GatewayChild;
  beforeAll(async () => {
    gw = await startGatewayChild(oversizeConfig(), { env: { LOG_LEVEL: 'error' } });
  });
  afterAll(async () => {
    await gw?.cleanup();
  });

  it('answers every 300 KB publish on its connection, counts it once, stores every reading after it, no reconnect', async () => {
    const f = await oversizeSoak(gw, 8);
    expect(f.problems).toEqual([]);
    expect(f.oversizeSent).toBeGreaterThanOrEqual(4);
    expect(f.oversizeRefusedV5).toBeGreaterThanOrEqual(2);
    expect(f.validStored).toBe(f.validAcked);
  }, 60_000);
});
