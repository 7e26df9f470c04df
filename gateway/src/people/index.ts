/**
 * People as the gateway composes them: accounts, sessions, personal tokens, sign-in and the first
 * admin's setup code; the accounts the configuration seeds at first start; and the people of a site
 * among its notification recipients.
 */

import type { ChangeLog } from '../admin/changes.ts';
import type { Config, RecipientRole, SiteConfig } from '../config/schema.ts';
import type { Log } from '../pipeline.ts';
import type { Db } from '../store/types.ts';
import { Accounts, type Person } from './accounts.ts';
import { Sessions } from './sessions.ts';
import { SETUP_HOURS, SetupCodes } from './setup.ts';
import { SignIn } from './signIn.ts';
import { Tokens } from './tokens.ts';

/** How a person is told of a site's alerts: as the recipients of that role in the configuration are. */
const RECIPIENT_ROLE: Partial<Record<Person['role'], RecipientRole>> = {
  inspector: 'officer',
  admin: 'officer',
  engineer: 'engineer',
  owner: 'owner',
  contractor: 'developer',
};

/** A site with the people of the site (enabled, listing it) added to its recipients by role. */
export function withPeople(site: SiteConfig | undefined, people: readonly Person[]): SiteConfig | undefined {
  if (!site) return undefined;
  const extra = people.flatMap((p) => {
    const role = RECIPIENT_ROLE[p.role];
    return role ? [{ role, name: p.name, email: p.email }] : [];
  });
  return extra.length ? { ...site, recipients: [...site.recipients, ...extra] } : site;
}

export function openPeople(
  db: Db,
  changes: ChangeLog,
  o: { config: Config; now: () => number; log: Log; onThrottled?: () => void; onChecked?: () => void },
) {
  const accounts = new Accounts(db, changes, o.now);
  const people = {
    accounts,
    sessions: new Sessions(db, o.now),
    tokens: new Tokens(db, changes, o.now),
    setup: new SetupCodes(db, o.now, () => signInPossible(accounts, o.config)),
    signIn: new SignIn(accounts, o.onThrottled, o.onChecked),
  };
  const seed = o.config.auth.users;
  if (accounts.count() === 0 && seed.length > 0) {
    db.transaction(() => {
      for (const u of seed) accounts.create({ ...u, passwordHash: u.passwordHash }, 'configuration');
    })();
    o.log.info({ accounts: seed.length }, 'accounts seeded from the configuration');
  }
  return people;
}

export type PeopleStage = ReturnType<typeof openPeople>;

/** Whether anyone can sign in: an account exists, or an API token is configured (GATEWAY_ADMIN_TOKEN too). */
export function signInPossible(accounts: Accounts, config: Config): boolean {
  return accounts.count() > 0 || config.auth.tokens.length > 0;
}

/**
 * With no account and no API token (neither configured nor GATEWAY_ADMIN_TOKEN), nobody could sign in:
 * a one-time link to create the first admin is issued (and returned, for the command line to print). Otherwise the codes of earlier links are retired
 * in the store (they are refused anyway while anyone can sign in).
 */
export function firstAdminLink(
  people: PeopleStage,
  config: Config,
  baseUrl: string,
  log: Log,
): string | undefined {
  if (signInPossible(people.accounts, config)) {
    try {
      const retired = people.setup.retire();
      if (retired > 0) log.info({ retired }, 'first-admin links retired: an account or an API token exists');
    } catch (e) {
      // They are refused all the same while anyone can sign in; the store is most likely read-only.
      log.warn({ err: (e as Error).message }, 'the earlier first-admin links could not be marked used');
    }
    return undefined;
  }
  const code = people.setup.issue();
  // The link itself is not logged: the command line prints it, as a plain line, at the end of the
  // start-up output (a JSON field is where nobody looks for it).
  log.info(
    { expiresInHours: SETUP_HOURS },
    'no account yet: a one-time link to create the first administrator was issued',
  );
  return `${baseUrl}/setup?code=${code}`;
}
