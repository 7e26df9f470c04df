/**
 * Password checks that hold under concurrency, for MQTT logins and dashboard sign-ins alike. A login names
 * an address and, mostly, a name (a username or an e-mail), each a key of its own throttle
 * (loginThrottle.ts). For every attempt, in this order:
 *
 * 1. an address over its free failures delays the attempt a moment (`ADDRESS_DELAY_MS` a failure over,
 *    at most `MAX_ADDRESS_DELAY_MS`), never refuses it: everyone behind one router shares the address,
 *    and others' failures must not lock out a device or person with the right credentials;
 * 2. it waits for a check slot of each of its keys: at most `MAX_CHECKS_IN_FLIGHT` password checks run at
 *    once per key, the rest wait in order (more than `MAX_WAITING` waiting on a key: refused at once);
 * 3. once it holds its slots, a name that is shut refuses it unchecked (an attempt without a name: its
 *    address, the only key it has);
 * 4. otherwise the attempt is counted as a failure of each key before its password is hashed, so the
 *    attempts behind it see the name shut as soon as its free failures are used up;
 * 5. the check runs; a success takes its failure back (a name opens again, an address forgets one).
 *
 * So a burst of any size costs at most the free failures plus one checks per name and shut time (at most
 * 10 a minute), and the right password sent inside the burst waits like the others and is refused while
 * its name is shut. Counts decay (the throttles leak), so nothing is shut for longer than its failures.
 */
import {
  ADDRESS_THROTTLE,
  LoginThrottle,
  type ThrottleOptions,
  throttleKey,
  USERNAME_THROTTLE,
} from './loginThrottle.ts';

/** Password checks in flight at most per account (or username) and per address. */
export const MAX_CHECKS_IN_FLIGHT = 2;
/** Attempts waiting at most for the slots of one key; beyond it they are refused unchecked. */
export const MAX_WAITING = 1000;
/** The delay of an attempt from an address over its free failures, per failure over. */
export const ADDRESS_DELAY_MS = 100;
/** The longest an address's failures delay an attempt. */
export const MAX_ADDRESS_DELAY_MS = 1000;

/** An attempt refused unchecked: its account or address is shut, or too many wait on it. */
export class Throttled extends Error {
  constructor(readonly retryAfterMs: number) {
    super(`too many failed logins: try again in ${Math.max(1, Math.ceil(retryAfterMs / 1000))} s`);
  }
}

/** At most `n` holders per key; the others wait in order. */
class KeyedSlots {
  private readonly keys = new Map<string, { active: number; waiting: Array<() => void> }>();
  constructor(
    private readonly n: number,
    private readonly maxWaiting: number,
  ) {}

  /** Resolves true once the caller holds a slot of the key; false when too many wait already. */
  acquire(key: string): Promise<boolean> {
    let k = this.keys.get(key);
    if (!k) {
      k = { active: 0, waiting: [] };
      this.keys.set(key, k);
    }
    if (k.active < this.n) {
      k.active++;
      return Promise.resolve(true);
    }
    if (k.waiting.length >= this.maxWaiting) return Promise.resolve(false);
    const slot = k;
    // The slot is handed over by release(): `active` stays as it is.
    return new Promise((resolve) => slot.waiting.push(() => resolve(true)));
  }

  release(key: string): void {
    const k = this.keys.get(key);
    if (!k) return;
    const next = k.waiting.shift();
    if (next) next();
    else if (--k.active === 0) this.keys.delete(key);
  }

  /** Keys with a holder or a waiter (for tests: nothing is left behind). */
  size(): number {
    return this.keys.size;
  }
}

interface Key {
  throttle: LoginThrottle;
  key: string;
  /** A success opens the key (a name) rather than only taking its own failure back (an address). */
  opensOnSuccess: boolean;
}

export interface GuardOptions {
  names?: ThrottleOptions;
  addresses?: ThrottleOptions;
  now?: () => number;
  maxInFlight?: number;
  maxWaiting?: number;
  /** Waits the address delay (a test's clock may stand still). */
  sleep?: (ms: number) => Promise<void>;
}

const realSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class LoginGuard {
  private readonly names: LoginThrottle;
  private readonly addresses: LoginThrottle;
  private readonly slots: KeyedSlots;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(o: GuardOptions = {}) {
    this.sleep = o.sleep ?? realSleep;
    this.names = new LoginThrottle(o.names ?? USERNAME_THROTTLE, o.now);
    this.addresses = new LoginThrottle(o.addresses ?? ADDRESS_THROTTLE, o.now);
    this.slots = new KeyedSlots(o.maxInFlight ?? MAX_CHECKS_IN_FLIGHT, o.maxWaiting ?? MAX_WAITING);
  }

  /**
   * Runs `check` (which rejects for wrong credentials) under the throttles of the address and the name.
   * Rejects with `Throttled` when refused unchecked; a failed check's error is passed on with `shutForMs`,
   * how long its keys are shut now.
   */
  async attempt<T>(who: { address: string; name?: string | undefined }, check: () => Promise<T>): Promise<T> {
    const address: Key = {
      throttle: this.addresses,
      key: throttleKey('addr', who.address),
      opensOnSuccess: false,
    };
    const name: Key | undefined = who.name
      ? { throttle: this.names, key: throttleKey('name', who.name), opensOnSuccess: true }
      : undefined;
    const keys: Key[] = name ? [address, name] : [address];
    // The keys that refuse: the name, or the address of an attempt without one.
    const shutting: Key[] = [name ?? address];
    const delay = this.addressDelay(who.address);
    if (name && delay > 0) await this.sleep(delay);
    const held: string[] = [];
    try {
      // Always in the same order (address, then name), so two attempts never wait on each other.
      for (const k of keys) {
        if (!(await this.slots.acquire(k.key))) throw new Throttled(Math.max(1000, this.shutFor(shutting)));
        held.push(k.key);
      }
      const shut = this.shutFor(shutting);
      if (shut > 0) throw new Throttled(shut);
      for (const k of keys) k.throttle.failed(k.key);
      let value: T;
      try {
        value = await check();
      } catch (e) {
        if (e instanceof Error) Object.assign(e, { shutForMs: this.shutFor(shutting) });
        throw e;
      }
      for (const k of keys) {
        if (k.opensOnSuccess) k.throttle.succeeded(k.key);
        else k.throttle.forgive(k.key);
      }
      return value;
    } finally {
      for (const k of held) this.slots.release(k);
    }
  }

  /** How long an attempt from the address waits first (ms; 0 while it has free failures left). */
  addressDelay(address: string): number {
    const over = this.addresses.over(throttleKey('addr', address));
    return Math.min(MAX_ADDRESS_DELAY_MS, over * ADDRESS_DELAY_MS);
  }

  /** Keys with a check running or waiting. */
  busyKeys(): number {
    return this.slots.size();
  }

  private shutFor(keys: Key[]): number {
    return Math.max(0, ...keys.map((k) => k.throttle.wait(k.key)));
  }
}
