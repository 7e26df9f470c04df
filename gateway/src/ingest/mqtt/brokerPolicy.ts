/**
 * Who may use the embedded broker, and for what: devices log in with their own credentials and may
 * publish and subscribe only under their own topics; users (dashboards, operators) log in with theirs
 * and may subscribe to the filters they are given, never publish; anonymous clients only when the
 * configuration allows it. Only the gateway publishes `gateway/` and `alerts/` topics.
 */
import { createHash } from 'node:crypto';
import type { AuthenticateError } from 'aedes';
import { verifyPasswordAsync } from '../../../../shared/src/password.ts';
import { parseDeviceTopic } from '../../../../shared/src/topics.ts';
import { normalizeIdentity } from '../../config/identities.ts';
import type { DeviceInfo, DeviceRegistry } from '../../config/registry.ts';
import type { Config } from '../../config/schema.ts';
import { LoginGuard, Throttled } from '../../loginGuard.ts';
import type { CredentialCache } from './credentialMacs.ts';
import { filterWithin } from './topicFilters.ts';

export type Principal =
  | { kind: 'device'; device: DeviceInfo }
  | { kind: 'user'; username: string; subscribe: string[] }
  | { kind: 'anonymous' };

/** At most `n` tasks at once; the rest wait in order. */
class Semaphore {
  private active = 0;
  private waiting: Array<() => void> = [];
  constructor(private readonly n: number) {}
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.n) await new Promise<void>((r) => this.waiting.push(r));
    this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}

function authError(message: string, code: 2 | 3 | 4 | 5): AuthenticateError {
  return Object.assign(new Error(message), { returnCode: code }) as AuthenticateError;
}

export class BrokerPolicy {
  /** sha256 of passwords already verified, so reconnect storms do not cost a scrypt each. */
  private verified = new Map<string, string>();
  /** scrypt needs 16 MB a check: a reconnect storm runs two at a time, not one per thread-pool thread. */
  private scryptSlots = new Semaphore(2);

  /** Attempts counted before their check, a few checks at a time per username and per address. */
  private readonly guard = new LoginGuard();
  /** Hears of every attempt refused unchecked because its username is shut (or too many wait). */
  onThrottled: (() => void) | undefined;
  /** Hears of every password checked against its hash (scrypt). */
  onChecked: (() => void) | undefined;

  constructor(
    private readonly mqtt: Config['mqtt'],
    private readonly registry: DeviceRegistry,
    /** Device secrets verified before (a keyed hash in the store), so a restart costs no scrypt. */
    private readonly credentials?: CredentialCache,
  ) {}

  /**
   * Forgets the passwords already verified (a device's secret changed or it was retired): every next login
   * is checked afresh against the registry, so an old secret stops working at once.
   */
  forgetVerified(): void {
    this.verified.clear();
  }

  /**
   * Who is logging in; rejects with the CONNACK return code (3 throttled after failed logins, 4 bad
   * credentials, 5 not authorized). Each attempt is counted against the username and the address before
   * its password is checked (loginGuard.ts), so failures slow the next attempts down even when they come
   * all at once.
   */
  async authenticate(username?: string, password?: Buffer, address = ''): Promise<Principal> {
    try {
      const name = username === undefined ? undefined : normalizeIdentity(username);
      return await this.guard.attempt({ address, name }, () => this.check(username, password));
    } catch (e) {
      if (!(e instanceof Throttled)) throw e;
      this.onThrottled?.();
      // Answered after a moment, so a client hammering one login waits for each refusal.
      await new Promise((r) => setTimeout(r, Math.min(e.retryAfterMs, 1000)));
      throw Object.assign(authError(e.message, 3), { throttled: true });
    }
  }

  private async check(username?: string, password?: Buffer): Promise<Principal> {
    if (username === undefined || username === '') {
      if (this.mqtt.allowAnonymous) return { kind: 'anonymous' };
      throw authError('anonymous access is off', 5);
    }
    // Look-alikes (case, spaces, Unicode forms and dashes) are one login: identities.ts refuses a second.
    const device = this.registry.byUsername(username);
    const wanted = normalizeIdentity(username);
    const user = device ? undefined : this.mqtt.users.find((u) => normalizeIdentity(u.username) === wanted);
    const hash = device?.device.passwordHash ?? user?.passwordHash;
    if (!hash) {
      if (device && this.mqtt.allowAnonymous) return { kind: 'device', device };
      throw authError(`unknown user or no credentials configured: ${username}`, 4);
    }
    const pw = password ?? Buffer.alloc(0);
    const digest = createHash('sha256').update(pw).digest('hex');
    const fast = device !== undefined && this.credentials !== undefined;
    if (this.verified.get(wanted) !== digest && !(fast && this.credentials!.known(hash, pw))) {
      this.onChecked?.();
      if (!(await this.scryptSlots.run(() => verifyPasswordAsync(pw, hash))))
        throw authError(`bad password for ${username}`, 4);
      if (fast) this.credentials!.remember(hash, pw);
    }
    this.verified.set(wanted, digest);
    return device ? { kind: 'device', device } : { kind: 'user', username, subscribe: user!.subscribe };
  }

  /** Why a principal may not publish to a topic, or undefined when it may. */
  refusal(p: Principal | undefined, topic: string): string | undefined {
    const t = parseDeviceTopic(topic);
    if (p?.kind === 'device') {
      const { siteId, deviceId, username } = p.device;
      if (t.kind === 'other' || t.siteId !== siteId || t.deviceId !== deviceId)
        return `${username} may publish only under sites/${siteId}/devices/${deviceId}/`;
      return undefined;
    }
    if (p?.kind === 'user') return `user ${p.username} may not publish`;
    if (topic.startsWith('gateway/') || topic.startsWith('alerts/'))
      return 'only the gateway publishes gateway/ and alerts/ topics';
    return undefined;
  }

  /** May a principal receive a message on a topic (live, or queued for its session)? */
  mayReceive(p: Principal | undefined, topic: string): boolean {
    return this.mayGrant(p, topic);
  }

  /** May a principal subscribe to a filter? */
  mayGrant(p: Principal | undefined, filter: string): boolean {
    if (!p || p.kind === 'anonymous') return this.mqtt.allowAnonymous;
    if (p.kind === 'device')
      return filterWithin(`sites/${p.device.siteId}/devices/${p.device.deviceId}/#`, filter);
    return p.subscribe.some((allowed) => filterWithin(allowed, filter));
  }
}
