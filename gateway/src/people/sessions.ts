/**
 * Dashboard sessions: signing in with e-mail and password gives a random session id in a cookie
 * (HttpOnly, SameSite=Strict, Secure over HTTPS); the store keeps only its SHA-256. A session lasts
 * SESSION_HOURS and ends at sign-out, when its account is disabled or its password reset by an admin,
 * or (every session but the one making the change) when its person changes their own password.
 */
import type { Db } from '../store/types.ts';
import { newSecret, sha256 } from './secrets.ts';

export const SESSION_COOKIE = 'gw_session';
export const SESSION_HOURS = 12;

/** What the store keeps of a session id: its SHA-256. */
export const sessionKey = (id: string): string => sha256(id);

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
      get: db.prepare<[string, number], { user_id: string; expires_at: number }>(
        'SELECT user_id, expires_at FROM sessions WHERE id_sha256 = ? AND expires_at > ?',
      ),
      remove: db.prepare('DELETE FROM sessions WHERE id_sha256 = ?'),
      removeUser: db.prepare('DELETE FROM sessions WHERE user_id = ?'),
      removeOthers: db.prepare('DELETE FROM sessions WHERE user_id = ? AND id_sha256 != ?'),
      prune: db.prepare('DELETE FROM sessions WHERE expires_at <= ?'),
    };
  }

  /** A new session for an account: the cookie's value (shown to the browser only). */
  open(userId: string): { id: string; expiresAt: number } {
    const id = newSecret();
    const now = this.now();
    const expiresAt = now + SESSION_HOURS * 3_600_000;
    this.stmts.prune.run(now);
    this.stmts.insert.run(sessionKey(id), userId, now, expiresAt);
    return { id, expiresAt };
  }

  /** The account of a live session. */
  userOf(id: string): string | undefined {
    return this.byKey(sessionKey(id))?.userId;
  }

  /** A live session by its key (the SHA-256 of its id): its account and when it ends. */
  byKey(key: string): { userId: string; expiresAt: number } | undefined {
    const r = this.stmts.get.get(key, this.now());
    return r ? { userId: r.user_id, expiresAt: r.expires_at } : undefined;
  }

  close(id: string): void {
    this.stmts.remove.run(sessionKey(id));
  }

  /** Ends every session of an account (disabled, or its password reset); how many there were. */
  closeAll(userId: string): number {
    return this.stmts.removeUser.run(userId).changes;
  }

  /** Ends every session of an account but the one of `keepKey` (its person changed their password). */
  closeOthers(userId: string, keepKey: string | undefined): number {
    return keepKey === undefined
      ? this.closeAll(userId)
      : this.stmts.removeOthers.run(userId, keepKey).changes;
  }
}
