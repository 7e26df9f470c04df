import { describe, expect, it } from 'vitest';
import { backoffMs, DEFAULT_RETRY, type RetryPolicy } from '../../gateway/src/notify/retry.ts';

const noJitter: RetryPolicy = { ...DEFAULT_RETRY, jitter: 0 };
const middle = () => 0.5;

describe('retry backoff', () => {
  it('starts at 5 s and doubles per attempt up to 1 h', () => {
    expect([1, 2, 3, 4].map((a) => backoffMs(noJitter, a, undefined, middle))).toEqual([
      5_000, 10_000, 20_000, 40_000,
    ]);
    expect(backoffMs(noJitter, 10, undefined, middle)).toBe(2_560_000);
    expect(backoffMs(noJitter, 11, undefined, middle)).toBe(3_600_000);
    expect(backoffMs(noJitter, 1_000, undefined, middle)).toBe(3_600_000);
  });

  it('gives up after 30 attempts, about a day of retrying', () => {
    let total = 0;
    for (let a = 1; a < DEFAULT_RETRY.maxAttempts; a++) total += backoffMs(noJitter, a, undefined, middle);
    expect(total / 3_600_000).toBeGreaterThan(20);
    expect(total / 3_600_000).toBeLessThan(24);
  });

  it('scales the delay by a random factor within ±20 %', () => {
    expect(backoffMs(DEFAULT_RETRY, 1, undefined, () => 0)).toBe(4_000);
    expect(backoffMs(DEFAULT_RETRY, 1, undefined, () => 0.5)).toBe(5_000);
    expect(backoffMs(DEFAULT_RETRY, 1, undefined, () => 0.999_999)).toBe(6_000);
    expect(backoffMs(DEFAULT_RETRY, 20, undefined, () => 0.999_999)).toBe(3_600_000);
  });

  it('waits at least the Retry-After the receiver asked for, never longer than the largest delay', () => {
    expect(backoffMs(noJitter, 1, 30_000, middle)).toBe(30_000);
    expect(backoffMs(noJitter, 3, 1_000, middle)).toBe(20_000);
    expect(backoffMs(noJitter, 1, 86_400_000, middle)).toBe(3_600_000);
  });
});
