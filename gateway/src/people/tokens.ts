/**
 * Personal API tokens: each person names theirs, sees it once, and may revoke it; the store keeps its
 * SHA-256 and expiry. A token acts as its person with their role and sites; the actor it records is
 * "Name (token: token name)".
 */
import { randomUUID } from 'node:crypto';
import type { ChangeLog } from '../admin/changes.ts';
import type { Db } from '../store/types.ts';
import { newSecret, sha256 } from './secrets.ts';

export const TOKEN_PREFIX = 'gwt_';
export const DEFAULT_TOKEN_DAYS = 90;
export const MAX_TOKEN_DAYS = 730;

export interface TokenRow {
  id: string;
  user_id: string;
  name: string;
  created_at: number;
  expires_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

export const tokenView = (t: TokenRow) => ({
  id: t.id,
  name: t.name,
  createdAt: iso(t.created_at)!,
  expiresAt: iso(t.expires_at)!,
  lastUsedAt: iso(t.last_used_at),
  revokedAt: iso(t.revoked_at),
});

export class Tokens {
  private readonly stmts;

  constructor(
    db: Db,
    private readonly changes: ChangeLog,
    private readonly now: () => number,
  ) {
    this.stmts = {
      insert: db.prepare(
        `INSERT INTO api_tokens (id, user_id, name, token_sha256, created_at, expires_at)
         VALUES (@id, @user_id, @name, @token_sha256, @created_at, @expires_at)`,
      ),
      list: db.prepare<[string], TokenRow>('SELECT * FROM api_tokens WHERE user_id = ? ORDER BY created_at'),
      byId: db.prepare<[string], TokenRow>('SELECT * FROM api_tokens WHERE id = ?'),
      byHash: db.prepare<[string], TokenRow>('SELECT * FROM api_tokens WHERE token_sha256 = ?'),
      used: db.prepare('UPDATE api_tokens SET last_used_at = ? WHERE id = ?'),
      revoke: db.prepare('UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
      working: db.prepare<[string, number], TokenRow>(
        'SELECT * FROM api_tokens WHERE user_id = ? AND revoked_at IS NULL AND expires_at > ?',
      ),
    };
  }

  /** Creates a token; returns it (shown this once) with its row. Call inside a transaction. */
  create(userId: string, name: string, expiresAt: number | undefined, by: string) {
    const now = this.now();
    const token = newSecret(TOKEN_PREFIX);
    const row = {
      id: randomUUID(),
      user_id: userId,
      name,
      token_sha256: sha256(token),
      created_at: now,
      expires_at: expiresAt ?? now + DEFAULT_TOKEN_DAYS * 86_400_000,
    };
    this.stmts.insert.run(row);
    const created = this.stmts.byId.get(row.id)!;
    this.changes.record({
      entity: 'token',
      action: 'create',
      by,
      ref: row.id,
      new: { userId, name, expiresAt: row.expires_at },
    });
    return { token, row: created };
  }

  list(userId: string): TokenRow[] {
    return this.stmts.list.all(userId);
  }

  /** The token's row while it works (not expired, not revoked); its use is noted. */
  resolve(token: string): TokenRow | undefined {
    const r = this.stmts.byHash.get(sha256(token));
    const now = this.now();
    if (!r || r.revoked_at !== null || r.expires_at <= now) return undefined;
    if (r.last_used_at === null || now - r.last_used_at > 60_000) this.stmts.used.run(now, r.id);
    return r;
  }

  /** A token's row by its id while it works (not expired, not revoked); its use is not noted. */
  working(id: string): TokenRow | undefined {
    const r = this.stmts.byId.get(id);
    return r && r.revoked_at === null && r.expires_at > this.now() ? r : undefined;
  }

  /** Revokes every working token of a person (disabled, or password reset); how many. In a transaction. */
  revokeAll(userId: string, by: string): number {
    const rows = this.stmts.working.all(userId, this.now());
    for (const r of rows) this.revoke(userId, r.id, by);
    return rows.length;
  }

  /** Revokes one of a person's tokens; false when it is not theirs or not there. */
  revoke(userId: string, id: string, by: string): boolean {
    const r = this.stmts.byId.get(id);
    if (!r || r.user_id !== userId) return false;
    if (r.revoked_at === null) {
      this.stmts.revoke.run(this.now(), id);
      this.changes.record({ entity: 'token', action: 'revoke', by, ref: id, old: { userId, name: r.name } });
    }
    return true;
  }
}
