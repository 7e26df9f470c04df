import { describe, expect, it } from 'vitest';
import { fuzzDecoders } from './decodeFuzz.ts';

describe('decoder fuzzing (2,000 inputs; `npm run fuzz -- 100000` for the long run)', () => {
  it('every input gives a reading or a known rejection, never an exception', () => {
    const r = fuzzDecoders(2000, 20261130);
    expect(r.failures).toEqual([]);
    // The generator reaches both outcomes and many reasons: the run exercised the decoder, not one branch.
    expect(r.accepted).toBeGreaterThan(0);
    expect(Object.keys(r.rejectedByReason).length).toBeGreaterThanOrEqual(6);
    // The fast path was compared with the schema on payloads both accept and on payloads only the schema
    // accepts (an ISO ts): a subset, and a real share of the valid ones.
    expect(r.quick.accepted).toBeGreaterThan(100);
    expect(r.quick.schemaAccepted).toBeGreaterThan(r.quick.accepted);
  });
});
