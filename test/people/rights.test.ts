/**
 * When rights end, on a real store: an admin's disable or password reset ends every session and revokes
 * every working token (each revocation a change record); a person's own change keeps the current
 * session; setup codes are void while anyone can sign in; a new token never outlives the one making it;
 * and the live feed's hub drops the subscribers whose rights are gone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChangeLog } from '../../gateway/src/admin/changes.ts';
import { EventHub } from '../../gateway/src/api/events.ts';
import { Accounts } from '../../gateway/src/people/accounts.ts';
import { endRightsAfterAdminChange, newTokenExpiry } from '../../gateway/src/people/rights.ts';
import { Sessions, sessionKey } from '../../gateway/src/people/sessions.ts';
import { SetupCodes } from '../../gateway/src/people/setup.ts';
import { Tokens } from '../../gateway/src/people/tokens.ts';
import { openDatabase } from '../../gateway/src/store/db.ts';
import { EvidenceLog } from '../../gateway/src/store/evidenceLog.ts';
import type { Db } from '../../gateway/src/store/types.ts';

const DAY = 86_400_000;

describe('newTokenExpiry', () => {
  const now = Date.parse('2026-12-01T12:00:00Z');
  it('gives the default or what is asked for, within two years', () => {
    expect(newTokenExpiry(undefined, now, undefined)).toEqual({ expiresAt: now + 90 * DAY });
    expect(newTokenExpiry(now + 5 * DAY, now, undefined)).toEqual({ expiresAt: now + 5 * DAY });
    expect(newTokenExpiry(now + 731 * DAY, now, undefined)).toHaveProperty('refused');
    expect(newTokenExpiry(now - 1, now, undefined)).toHaveProperty('refused');
  });
  it('never outlives the token making it: a default is cut to it, more asked for is refused in words', () => {
    const maker = now + DAY;
    expect(newTokenExpiry(undefined, now, maker)).toEqual({ expiresAt: maker });
    expect(newTokenExpiry(maker - 1000, now, maker)).toEqual({ expiresAt: maker - 1000 });
    const r = newTokenExpiry(now + 729 * DAY, now, maker);
    expect(r).toEqual({
      refused:
        'A token can only make tokens that end no later than it does: the one you used ends at ' +
        '2026-12-02T12:00:00Z. Choose an earlier expiry, or sign in with your password to make a longer one.',
    });
  });
});

describe('EventHub.recheck', () => {
  it('drops the subscribers whose check says no, keeps the others and those without one', () => {
    const hub = new EventHub();
    const got: string[] = [];
    let allowed = true;
    hub.subscribe(
      () => got.push('checked'),
      () => allowed,
    );
    hub.subscribe(() => got.push('open'));
    expect(hub.recheck()).toBe(0);
    hub.publish('readings', {});
    allowed = false;
    expect(hub.recheck()).toBe(1);
    hub.publish('readings', {});
    expect(got).toEqual(['checked', 'open', 'open']);
    expect(hub.size).toBe(1);
  });
});

describe('rights on a real store', () => {
  let dir: string;
  let db: Db;
  let now = Date.parse('2026-12-01T12:00:00Z');
  const clock = () => now;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gw-rights-'));
    db = openDatabase(dir);
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('an admin change ends sessions and revokes working tokens; an own change keeps this session', () => {
    const changes = new ChangeLog(db, new EvidenceLog(db), clock);
    const accounts = new Accounts(db, changes, clock);
    const sessions = new Sessions(db, clock);
    const tokens = new Tokens(db, changes, clock);
    const p = db.transaction(() =>
      accounts.create(
        { name: 'Ida', email: 'ida@town.example', role: 'inspector', sites: [], password: 'a long password' },
        't',
      ),
    )();
    const [a, b, c] = [sessions.open(p.id), sessions.open(p.id), sessions.open(p.id)];
    expect(sessions.closeOthers(p.id, sessionKey(a.id))).toBe(2);
    expect(sessions.userOf(a.id)).toBe(p.id);
    expect(sessions.userOf(b.id) ?? sessions.userOf(c.id)).toBeUndefined();

    const t1 = db.transaction(() => tokens.create(p.id, 'one', undefined, 't'))();
    const t2 = db.transaction(() => tokens.create(p.id, 'two', undefined, 't'))();
    db.transaction(() => tokens.revoke(p.id, t2.row.id, 't'))();
    const nothing = db.transaction(() =>
      endRightsAfterAdminChange({ sessions, tokens }, p.id, {}, 'admin'),
    )();
    expect(nothing).toEqual({ sessions: 0, tokens: 0 });
    const ended = db.transaction(() =>
      endRightsAfterAdminChange({ sessions, tokens }, p.id, { disabled: true }, 'admin'),
    )();
    expect(ended).toEqual({ sessions: 1, tokens: 1 });
    expect(tokens.working(t1.row.id)).toBeUndefined();
    expect(tokens.resolve(t1.token)).toBeUndefined();
    const revocations = db
      .prepare("SELECT COUNT(*) AS n FROM changes WHERE entity = 'token' AND action = 'revoke'")
      .get() as { n: number };
    expect(revocations.n).toBe(2);
  });

  it('setup codes are void while anyone can sign in, and retired for good', () => {
    let someone = false;
    const setup = new SetupCodes(db, clock, () => someone);
    const code = setup.issue();
    expect(setup.valid(code)).toBe(true);
    someone = true;
    expect(setup.valid(code)).toBe(false);
    expect(setup.use(code)).toBe(false);
    expect(setup.retire()).toBe(1);
    someone = false;
    expect(setup.valid(code)).toBe(false);
    now += 1000;
    expect(setup.retire()).toBe(0);
  });
});
