import type { Config } from '../config/schema.ts';

interface Bucket {
  tokens: number;
  at: number;
  lastLoggedAt: number;
}

/** A token bucket per device: `deviceRatePerSec` sustained, `deviceBurst` at once. */
export class RateLimiter {
  private buckets = new Map<string, Bucket>();

  constructor(private readonly limits: Pick<Config['ingest'], 'deviceRatePerSec' | 'deviceBurst'>) {}

  /** Takes a token for a message arriving at `now`; false when the device is over its rate. */
  allow(siteId: string, deviceId: string, now: number): boolean {
    const key = `${siteId}/${deviceId}`;
    const { deviceRatePerSec: rate, deviceBurst: burst } = this.limits;
    let b = this.buckets.get(key);
    if (!b) {
      b = { tokens: burst, at: now, lastLoggedAt: 0 };
      this.buckets.set(key, b);
    }
    b.tokens = Math.min(burst, b.tokens + ((now - b.at) / 1000) * rate);
    b.at = now;
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  /**
   * Whether a refused message arriving at `at` is recorded: a flood is counted in full, but recorded at
   * most once a second per device so it cannot flood the store.
   */
  record(siteId: string | undefined, deviceId: string | undefined, at: number): boolean {
    const b = this.buckets.get(`${siteId}/${deviceId}`);
    if (!b) return true;
    if (at - b.lastLoggedAt < 1000) return false;
    b.lastLoggedAt = at;
    return true;
  }
}
