/**
 * The first admin. With no account in the store, no configured API token and no GATEWAY_ADMIN_TOKEN, the
 * gateway logs a one-time link, `/setup?code=...`: the code creates the first admin once, within
 * SETUP_HOURS. The store keeps only the code's SHA-256. A code is void as soon as anyone can sign in
 * (an account exists or an API token is configured, GATEWAY_ADMIN_TOKEN included), whatever its age: a
 * gateway started again with an admin token, or whose first admin was made another way, takes no code.
 */
import type { Db } from '../store/types.ts';
import { newSecret, sha256 } from './secrets.ts';

export const SETUP_HOURS = 24;

export class SetupCodes {
  private readonly stmts;

  constructor(
    db: Db,
    private readonly now: () => number,
    /** Whether anyone can sign in already (an account, a configured token): then no code works. */
    readonly anyoneCanSignIn: () => boolean,
  ) {
    this.stmts = {
      insert: db.prepare('INSERT INTO setup_codes (code_sha256, created_at, expires_at) VALUES (?, ?, ?)'),
      get: db.prepare<[string], { expires_at: number; used_at: number | null }>(
        'SELECT expires_at, used_at FROM setup_codes WHERE code_sha256 = ?',
      ),
      use: db.prepare('UPDATE setup_codes SET used_at = ? WHERE code_sha256 = ? AND used_at IS NULL'),
      retire: db.prepare('UPDATE setup_codes SET used_at = ? WHERE used_at IS NULL'),
      unused: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM setup_codes WHERE used_at IS NULL'),
    };
  }

  /** A new code (earlier unused ones stop working). */
  issue(): string {
    const code = newSecret();
    const now = this.now();
    this.stmts.retire.run(now);
    this.stmts.insert.run(sha256(code), now, now + SETUP_HOURS * 3_600_000);
    return code;
  }

  /** Marks every unused code used (they are void: someone can sign in); how many there were. */
  retire(): number {
    if (this.stmts.unused.get()!.n === 0) return 0;
    return this.stmts.retire.run(this.now()).changes;
  }

  /** Whether a code may be used now. */
  valid(code: string): boolean {
    if (this.anyoneCanSignIn()) return false;
    const r = this.stmts.get.get(sha256(code));
    return r !== undefined && r.used_at === null && r.expires_at > this.now();
  }

  /** Uses a code up; false when it was not valid. Call inside the transaction that creates the admin. */
  use(code: string): boolean {
    if (!this.valid(code)) return false;
    return this.stmts.use.run(this.now(), sha256(code)).changes === 1;
  }
}
