/**
 * Dashboard sessions: signing in with e-mail and password gives a random session id in a cookie
 * (HttpOnly, SameSite=Strict, Secure over HTTPS); the store keeps only its SHA-256. A session lasts
 * SESSION_HOURS and ends at sign-out, or when its account is disabled.
 */
import type { Db } from '../store/types.ts';
import { newSecret, sha256 } from './secrets.ts';

export const SESSION_COOKIE = 'gw_session';
export const SESSION_HOURS = 12;

export class Sessions {
  private readonly stmts;

  constructor(
    db: Db,
    private readonly now: () => number,
  ) {
    this.stmts = {
      insert: db.prepare(
        'INSERT INTO sessions (id_sha256, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)',
      ),
      get: db.prepare<[string, number], { user_id: string }>(
        'SELECT user_id FROM sessions WHERE id_sha256 = ? AND expires_at > ?',
      ),
      remove: db.prepare('DELETE FROM sessions WHERE id_sha256 = ?'),
      removeUser: db.prepare('DELETE FROM sessions WHERE user_id = ?'),
      prune: db.prepare('DELETE FROM sessions WHERE expires_at <= ?'),
    };
  }

  /** A new session for an account: the cookie's value (shown to the browser only). */
  open(userId: string): { id: string; expiresAt: number } {
    const id = newSecret();
    const now = this.now();
    const expiresAt = now + SESSION_HOURS * 3_600_000;
    this.stmts.prune.run(now);
    this.stmts.insert.run(sha256(id), userId, now, expiresAt);
    return { id, expiresAt };
  }

  /** The account of a live session. */
  userOf(id: string): string | undefined {
    return this.stmts.get.get(sha256(id), this.now())?.user_id;
  }

  close(id: string): void {
    this.stmts.remove.run(sha256(id));
  }

  /** Ends every session of an account (disabled, or its password changed). */
  closeAll(userId: string): void {
    this.stmts.removeUser.run(userId);
  }
}
