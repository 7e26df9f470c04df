/**
 * Failed logins slow the next ones down, per key (a username, an address): after `free` failures each
 * further failure shuts the key for twice as long as the one before (1 s, 2 s, 4 s, … up to `maxMs`).
 * While a key is shut its attempts are refused without checking any password, so guessing costs time,
 * not scrypt work; a success opens the username again. Failures leak away (one every `leakMs`, a leaky
 * bucket), and a key with no failure for `forgetMs` is forgotten, so a key's count decays by itself.
 * Used for API tokens, and through loginGuard.ts (which counts an attempt before its check, and only
 * delays an address over its count, never shuts it to a name) for MQTT logins and sign-ins.
 */

export interface ThrottleOptions {
  /** Failures in a row before the first delay. */
  free: number;
  /** The first delay. */
  baseMs: number;
  maxMs: number;
  /** A key with no failure for this long is forgotten. */
  forgetMs: number;
  /** One failure leaks away per this long without a new one (unset: only `forgetMs` forgets). */
  leakMs?: number;
}

export const USERNAME_THROTTLE: ThrottleOptions = {
  free: 3,
  baseMs: 1000,
  maxMs: 60_000,
  forgetMs: 15 * 60_000,
  leakMs: 60_000,
};
/** An address is shared by every device behind one router: it gets more failures before a delay. */
export const ADDRESS_THROTTLE: ThrottleOptions = {
  free: 10,
  baseMs: 1000,
  maxMs: 60_000,
  forgetMs: 15 * 60_000,
  leakMs: 6_000,
};

interface Entry {
  failures: number;
  until: number;
  last: number;
  /** Since when failures leak (a steady rate, whatever comes in meanwhile). */
  leakFrom: number;
}

/** Keys remembered at most; the oldest go first beyond it, so a spray of names cannot fill memory. */
const MAX_KEYS = 10_000;

export class LoginThrottle {
  private entries = new Map<string, Entry>();

  constructor(
    private readonly opts: ThrottleOptions,
    private readonly now: () => number = Date.now,
  ) {}

  /** How long the key stays shut (ms; 0: it may try now). */
  wait(key: string): number {
    const e = this.get(key);
    return e ? Math.max(0, e.until - this.now()) : 0;
  }

  /** Failures counted beyond the free ones (0: none over). */
  over(key: string): number {
    const e = this.get(key);
    return e ? Math.max(0, e.failures - this.opts.free) : 0;
  }

  /** Records a failure; returns how long the key is now shut (0 while it has free failures left). */
  failed(key: string): number {
    const now = this.now();
    const e = this.get(key) ?? { failures: 0, until: 0, last: now, leakFrom: now };
    e.failures++;
    e.last = now;
    const over = e.failures - this.opts.free;
    const delay = over <= 0 ? 0 : Math.min(this.opts.maxMs, this.opts.baseMs * 2 ** (over - 1));
    e.until = now + delay;
    this.entries.delete(key);
    this.entries.set(key, e);
    if (this.entries.size > MAX_KEYS) this.entries.delete(this.entries.keys().next().value as string);
    return delay;
  }

  succeeded(key: string): void {
    this.entries.delete(key);
  }

  /**
   * Takes one failure back (a failure counted before its check, when the check then succeeded): within the
   * free failures the key opens again; past them it stays shut as the other failures set it.
   */
  forgive(key: string): void {
    const e = this.get(key);
    if (!e) return;
    e.failures = Math.max(0, e.failures - 1);
    if (e.failures === 0) this.entries.delete(key);
    else if (e.failures <= this.opts.free) e.until = 0;
  }

  private get(key: string): Entry | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    const now = this.now();
    const leak = this.opts.leakMs;
    if (leak && now - e.leakFrom >= leak) {
      const n = Math.floor((now - e.leakFrom) / leak);
      e.failures -= n;
      e.leakFrom += n * leak;
      if (e.failures <= this.opts.free) e.until = Math.min(e.until, now);
    }
    if (e.failures <= 0 || now - e.last > this.opts.forgetMs) {
      this.entries.delete(key);
      return undefined;
    }
    return e;
  }
}

/** A key for logging and throttling: the first 128 characters of what a client sent. */
export const throttleKey = (kind: string, value: string): string => `${kind}:${value.slice(0, 128)}`;
