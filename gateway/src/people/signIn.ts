/**
 * Signing in with e-mail and password, slowed down per account and per address as MQTT logins and API
 * tokens are (loginThrottle.ts): after 3 wrong passwords for an account (10 from an address) each further
 * attempt shuts it for 1 s, 2 s, 4 s, … up to 60 s, and while shut attempts are refused unchecked.
 */
import { ADDRESS_THROTTLE, LoginThrottle, throttleKey, USERNAME_THROTTLE } from '../loginThrottle.ts';
import type { Accounts, Person } from './accounts.ts';

export type SignInResult =
  | { ok: true; person: Person }
  | { ok: false; reason: 'throttled'; retryAfterSec: number }
  | { ok: false; reason: 'bad' };

export class SignIn {
  private readonly accounts = new LoginThrottle(USERNAME_THROTTLE);
  private readonly addresses = new LoginThrottle(ADDRESS_THROTTLE);

  constructor(
    private readonly people: Accounts,
    private readonly onThrottled: () => void = () => {},
  ) {}

  async check(email: string, password: string, address: string): Promise<SignInResult> {
    const a = throttleKey('addr', address);
    const u = throttleKey('email', email.toLowerCase());
    const shut = Math.max(this.addresses.wait(a), this.accounts.wait(u));
    if (shut > 0) {
      this.onThrottled();
      return { ok: false, reason: 'throttled', retryAfterSec: Math.ceil(shut / 1000) };
    }
    const person = await this.people.check(email, password);
    if (person) {
      this.accounts.succeeded(u);
      return { ok: true, person };
    }
    this.addresses.failed(a);
    this.accounts.failed(u);
    return { ok: false, reason: 'bad' };
  }
}
