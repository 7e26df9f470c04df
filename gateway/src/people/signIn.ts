/**
 * Signing in with e-mail and password, slowed down per account and per address as MQTT logins are
 * (loginGuard.ts): each attempt is counted before its password is hashed, at most a few checks run at once
 * per account and per address, and after 3 wrong passwords for an account each further one shuts it for
 * 1 s, 2 s, 4 s, … up to 60 s; while shut, attempts are refused unchecked. An address's failures only
 * delay the attempts from it (at most 1 s), so a person is never locked out by others behind a router.
 */
import { LoginGuard, Throttled } from '../loginGuard.ts';
import type { Accounts, Person } from './accounts.ts';

export type SignInResult =
  | { ok: true; person: Person }
  | { ok: false; reason: 'throttled'; retryAfterSec: number }
  | { ok: false; reason: 'bad' };

class WrongPassword extends Error {}

export class SignIn {
  private readonly guard = new LoginGuard();

  constructor(
    private readonly people: Accounts,
    private readonly onThrottled: () => void = () => {},
    /** Hears of every password checked against its hash (scrypt). */
    private readonly onChecked: () => void = () => {},
  ) {}

  async check(email: string, password: string, address: string): Promise<SignInResult> {
    try {
      const person = await this.guard.attempt({ address, name: email.toLowerCase() }, async () => {
        this.onChecked();
        const p = await this.people.check(email, password);
        if (!p) throw new WrongPassword('wrong e-mail or password');
        return p;
      });
      return { ok: true, person };
    } catch (e) {
      if (e instanceof Throttled) {
        this.onThrottled();
        return {
          ok: false,
          reason: 'throttled',
          retryAfterSec: Math.max(1, Math.ceil(e.retryAfterMs / 1000)),
        };
      }
      if (e instanceof WrongPassword) return { ok: false, reason: 'bad' };
      throw e;
    }
  }
}
