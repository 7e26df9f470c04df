/**
 * Accounts: a person's name, e-mail (unique, whatever its case), role, sites and scrypt password hash.
 * Creating or changing one is a change record (without the hash: only that the password was set).
 */
import { randomUUID } from 'node:crypto';
import type { UserResponse, UserRole } from '../../../shared/src/admin.ts';
import { hashPassword, verifyPasswordAsync } from '../../../shared/src/password.ts';
import type { ChangeLog } from '../admin/changes.ts';
import type { Db } from '../store/types.ts';

export interface Person {
  id: string;
  name: string;
  email: string;
  role: UserRole;
  sites: string[];
  disabled: boolean;
  createdAt: number;
}

interface UserRow {
  id: string;
  name: string;
  email: string;
  role: UserRole;
  sites: string;
  password_hash: string;
  disabled: number;
  created_at: number;
  updated_at: number;
}

const person = (r: UserRow): Person => ({
  id: r.id,
  name: r.name,
  email: r.email,
  role: r.role,
  sites: JSON.parse(r.sites) as string[],
  disabled: r.disabled === 1,
  createdAt: r.created_at,
});

export const userView = (p: Person): UserResponse => ({
  id: p.id,
  name: p.name,
  email: p.email,
  role: p.role,
  sites: p.sites,
  disabled: p.disabled,
  createdAt: new Date(p.createdAt).toISOString(),
});

/** What changes of an account are recorded (never its hash). */
const recorded = (p: Person) => ({
  name: p.name,
  email: p.email,
  role: p.role,
  sites: p.sites,
  disabled: p.disabled,
});

export interface NewPerson {
  name: string;
  email: string;
  role: UserRole;
  sites: string[];
  /** The password, or its scrypt hash (an account from the configuration). */
  password?: string;
  passwordHash?: string;
}

export class Accounts {
  private readonly stmts;
  /** A hash to check wrong e-mails against, so an unknown account costs the same time as a known one. */
  private readonly dummyHash = hashPassword('no such account');

  constructor(
    db: Db,
    private readonly changes: ChangeLog,
    private readonly now: () => number,
  ) {
    this.stmts = {
      count: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM users'),
      all: db.prepare<[], UserRow>('SELECT * FROM users ORDER BY created_at, id'),
      byId: db.prepare<[string], UserRow>('SELECT * FROM users WHERE id = ?'),
      byEmail: db.prepare<[string], UserRow>('SELECT * FROM users WHERE email = ?'),
      insert: db.prepare(
        `INSERT INTO users (id, name, email, role, sites, password_hash, disabled, created_at, updated_at)
         VALUES (@id, @name, @email, @role, @sites, @password_hash, 0, @created_at, @created_at)`,
      ),
      update: db.prepare(
        `UPDATE users SET name = @name, email = @email, role = @role, sites = @sites,
         password_hash = @password_hash, disabled = @disabled, updated_at = @updated_at WHERE id = @id`,
      ),
    };
  }

  count(): number {
    return this.stmts.count.get()!.n;
  }

  list(): Person[] {
    return this.stmts.all.all().map(person);
  }

  byId(id: string): Person | undefined {
    const r = this.stmts.byId.get(id);
    return r ? person(r) : undefined;
  }

  /** The people of a site: those whose sites list it. */
  ofSite(siteId: string): Person[] {
    return this.list().filter((p) => !p.disabled && p.sites.includes(siteId));
  }

  /** The account of an e-mail and password, or undefined; always costs one scrypt check. */
  async check(email: string, password: string): Promise<Person | undefined> {
    const r = this.stmts.byEmail.get(email);
    const ok = await verifyPasswordAsync(password, r?.password_hash ?? this.dummyHash);
    return r && ok && r.disabled === 0 ? person(r) : undefined;
  }

  /** Creates an account; throws `EmailTaken` when the e-mail has one. Call inside a transaction. */
  create(p: NewPerson, by: string): Person {
    if (this.stmts.byEmail.get(p.email)) throw new EmailTaken(p.email);
    const row = {
      id: randomUUID(),
      name: p.name,
      email: p.email,
      role: p.role,
      sites: JSON.stringify(p.sites),
      password_hash: p.passwordHash ?? hashPassword(p.password ?? ''),
      created_at: this.now(),
    };
    this.stmts.insert.run(row);
    const created = this.byId(row.id)!;
    this.changes.record({ entity: 'user', action: 'create', by, ref: row.id, new: recorded(created) });
    return created;
  }

  /** Changes an account (a new password is hashed); returns it as it is now. Call inside a transaction. */
  update(
    id: string,
    patch: Partial<Pick<Person, 'name' | 'email' | 'role' | 'sites' | 'disabled'>> & { password?: string },
    by: string,
  ): Person | undefined {
    const r = this.stmts.byId.get(id);
    if (!r) return undefined;
    if (patch.email !== undefined && patch.email.toLowerCase() !== r.email.toLowerCase()) {
      if (this.stmts.byEmail.get(patch.email)) throw new EmailTaken(patch.email);
    }
    const old = person(r);
    this.stmts.update.run({
      id,
      name: patch.name ?? r.name,
      email: patch.email ?? r.email,
      role: patch.role ?? r.role,
      sites: JSON.stringify(patch.sites ?? old.sites),
      password_hash: patch.password !== undefined ? hashPassword(patch.password) : r.password_hash,
      disabled: patch.disabled === undefined ? r.disabled : patch.disabled ? 1 : 0,
      updated_at: this.now(),
    });
    const now = this.byId(id)!;
    this.changes.record({
      entity: 'user',
      action: 'update',
      by,
      ref: id,
      old: recorded(old),
      new: { ...recorded(now), ...(patch.password !== undefined ? { passwordChanged: true } : {}) },
    });
    return now;
  }
}

/** The enabled accounts as the configuration's `auth.users` takes them (with their hashes), for export. */
export function accountsForExport(db: Db) {
  return db
    .prepare<[], UserRow>('SELECT * FROM users WHERE disabled = 0 ORDER BY created_at, id')
    .all()
    .map((r) => ({
      name: r.name,
      email: r.email,
      role: r.role,
      sites: JSON.parse(r.sites) as string[],
      passwordHash: r.password_hash,
    }));
}

export class EmailTaken extends Error {
  constructor(email: string) {
    super(`an account with the e-mail ${email} exists`);
  }
}
