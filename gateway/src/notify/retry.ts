/**
 * When a failed delivery is tried again: exponential backoff from `baseMs`, doubling per attempt up to
 * `maxMs`, scaled by a random factor in [1 - jitter, 1 + jitter], never sooner than the receiver's
 * Retry-After (nor later than `maxMs`). After `maxAttempts` the delivery is given up on (`failed`).
 */

export interface RetryPolicy {
  /** First retry delay, ms (default 5 000); doubles per attempt. */
  baseMs: number;
  /** Largest retry delay, ms (default 3 600 000). */
  maxMs: number;
  /** Attempts before a delivery is marked failed (default 30). */
  maxAttempts: number;
  /** Relative jitter, 0..1 (default 0.2: the delay is scaled by a random factor in [0.8, 1.2]). */
  jitter: number;
}

export const DEFAULT_RETRY: RetryPolicy = { baseMs: 5_000, maxMs: 3_600_000, maxAttempts: 30, jitter: 0.2 };

/**
 * Delay before the retry that follows attempt number `attempts` (1 for the first), ms.
 * `random` gives a number in [0, 1).
 */
export function backoffMs(
  policy: RetryPolicy,
  attempts: number,
  retryAfterMs: number | undefined,
  random: () => number,
): number {
  const { baseMs, maxMs, jitter } = policy;
  const exp = Math.min(maxMs, baseMs * 2 ** Math.min(attempts - 1, 40));
  const jittered = exp * (1 - jitter + 2 * jitter * random());
  return Math.round(Math.min(maxMs, Math.max(jittered, retryAfterMs ?? 0)));
}
