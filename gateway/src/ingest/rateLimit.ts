import type { Config } from '../config/schema.ts';

interface Bucket {
  /** Tokens left; below zero, the tokens already promised to messages still waiting. */
  tokens: number;
  at: number;
}

/**
 * A token bucket per device: `deviceRatePerSec` sustained, `deviceBurst` at once. A message that may
 * wait (a QoS 1 publish, a serial line) reserves the next token and is told how long to wait for it, so a
 * device over its rate is slowed down rather than cut short; one that may wait only briefly (QoS 0) is
 * dropped when its token is further off than that.
 */
export class RateLimiter {
  private buckets = new Map<string, Bucket>();

  constructor(private readonly limits: Pick<Config['ingest'], 'deviceRatePerSec' | 'deviceBurst'>) {}

  private bucket(key: string, now: number): Bucket {
    const { deviceRatePerSec: rate, deviceBurst: burst } = this.limits;
    let b = this.buckets.get(key);
    if (!b) {
      b = { tokens: burst, at: now };
      this.buckets.set(key, b);
    }
    b.tokens = Math.min(burst, b.tokens + (Math.max(0, now - b.at) / 1000) * rate);
    b.at = now;
    return b;
  }

  /**
   * Reserves a token for a message arriving at `now`: how many ms it must wait for it (0: none), or -1
   * (and nothing reserved) when that would be longer than `maxWaitMs`.
   */
  reserve(key: string, now: number, maxWaitMs = Number.POSITIVE_INFINITY): number {
    const b = this.bucket(key, now);
    const wait = b.tokens >= 1 ? 0 : Math.ceil(((1 - b.tokens) / this.limits.deviceRatePerSec) * 1000);
    if (wait > maxWaitMs) return -1;
    b.tokens -= 1;
    return wait;
  }
}

/**
 * Work deferred per device until its reserved time, run in the order it was deferred: one timer per
 * device, not one per message. Devices wait independently, so one device slowed down holds up no other.
 */
export class Pacer {
  private queues = new Map<
    string,
    { items: Array<{ at: number; run: () => void }>; timer: NodeJS.Timeout }
  >();
  private count = 0;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Messages waiting for their turn. */
  get waiting(): number {
    return this.count;
  }

  /** Whether something waits for `key`: what comes after it for the same key waits behind it. */
  holds(key: string): boolean {
    return this.queues.has(key);
  }

  /** Runs `run` `delayMs` from now, and after everything deferred for `key` before it. */
  defer(key: string, delayMs: number, run: () => void): void {
    const at = this.now() + delayMs;
    this.count++;
    const q = this.queues.get(key);
    if (q) {
      q.items.push({ at: Math.max(at, q.items.at(-1)!.at), run });
      return;
    }
    const items = [{ at, run }];
    this.queues.set(key, { items, timer: this.schedule(key, delayMs) });
  }

  /** Runs everything still waiting at once, in order (at stop, so each message is told its outcome). */
  flush(): void {
    for (const [key, q] of this.queues) {
      clearTimeout(q.timer);
      this.queues.delete(key);
      for (const it of q.items) {
        this.count--;
        it.run();
      }
    }
  }

  private schedule(key: string, delayMs: number): NodeJS.Timeout {
    return setTimeout(() => this.release(key), Math.max(0, delayMs));
  }

  private release(key: string): void {
    const q = this.queues.get(key);
    if (!q) return;
    const now = this.now();
    let i = 0;
    while (i < q.items.length && q.items[i]!.at <= now) i++;
    const due = q.items.splice(0, i);
    if (q.items.length) q.timer = this.schedule(key, q.items[0]!.at - now);
    else this.queues.delete(key);
    for (const it of due) {
      this.count--;
      it.run();
    }
  }
}
