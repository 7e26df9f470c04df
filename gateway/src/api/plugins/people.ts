/**
 * Accounts (admin) and each person's own API tokens: GET|POST /api/users, PATCH /api/users/{id};
 * GET|POST /api/tokens, DELETE /api/tokens/{id}. A token is answered once, when it is made. Disabling an
 * account or resetting its password ends its sessions and revokes its tokens; a token makes none that
 * outlives it; the live feeds are checked again right after each change (people/rights.ts).
 */
import type { FastifyPluginAsync } from 'fastify';
import { tokenCreateBody, userCreateBody, userPatchBody } from '../../../../shared/src/admin.ts';
import { idParams } from '../../../../shared/src/api/requests.ts';
import { EmailTaken, userView } from '../../people/accounts.ts';
import { endRightsAfterAdminChange, newTokenExpiry } from '../../people/rights.ts';
import { tokenView } from '../../people/tokens.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { parseWith } from '../query.ts';
import { route } from '../routes.ts';

const secured = { security: [{ bearer: [] }] };

/** An EmailTaken from the accounts becomes the API's code. */
function emailChecked<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof EmailTaken) throw new ApiError('EMAIL_TAKEN', e.message);
    throw e;
  }
}

/** What accounts and personal tokens use. */
export type PeopleServices = Pick<
  ApiContext,
  'auth' | 'catalogue' | 'events' | 'now' | 'people' | 'transaction'
>;

export const peoplePlugin: FastifyPluginAsync<PeopleServices> = async (app, ctx) => {
  const { accounts, tokens, sessions } = ctx.people;
  const knownSites = (sites: readonly string[] | undefined) => {
    for (const s of sites ?? [])
      if (!ctx.catalogue.site(s)) throw new ApiError('BAD_REQUEST', `sites: no site ${s}`);
  };

  app.route(
    route(
      'GET /api/users',
      {
        schema: {
          tags: ['people'],
          summary: 'Every account (admin)',
          ...secured,
        },
      },
      async (req) => {
        ctx.auth.require(req, 'admin');
        return accounts.list().map(userView);
      },
    ),
  );

  app.route(
    route(
      'POST /api/users',
      {
        schema: {
          tags: ['people'],
          summary: 'Create an account (admin)',
          ...secured,
        },
      },
      async (req, reply) => {
        const caller = ctx.auth.require(req, 'admin');
        const b = parseWith(userCreateBody, req.body);
        knownSites(b.sites);
        const p = emailChecked(() => ctx.transaction(() => accounts.create(b, caller.actor)));
        reply.code(201);
        return userView(p);
      },
    ),
  );

  app.route(
    route(
      'PATCH /api/users/:id',
      {
        schema: {
          tags: ['people'],
          summary: 'Change an account (admin): name, e-mail, role, sites, password, disabled',
          ...secured,
        },
      },
      async (req) => {
        const caller = ctx.auth.require(req, 'admin');
        const { id } = parseWith(idParams, req.params);
        const b = parseWith(userPatchBody, req.body);
        knownSites(b.sites);
        const p = emailChecked(() =>
          ctx.transaction(() => {
            const changed = accounts.update(id, b, caller.actor);
            // Disabled, or its password reset: its sessions end and its tokens are revoked.
            if (changed) endRightsAfterAdminChange({ sessions, tokens }, id, b, caller.actor);
            return changed;
          }),
        );
        if (!p) throw new ApiError('NOT_FOUND', `no account ${id}`);
        // Its open live feeds end now (and an owner's follow their new sites).
        ctx.events.recheck();
        return userView(p);
      },
    ),
  );

  const own = (req: Parameters<typeof ctx.auth.require>[0]) => {
    const c = ctx.auth.require(req, 'viewer');
    if (!c.userId) throw new ApiError('FORBIDDEN', 'personal tokens belong to accounts: sign in as a person');
    return { ...c, userId: c.userId };
  };

  app.route(
    route(
      'GET /api/tokens',
      {
        schema: {
          tags: ['people'],
          summary: 'Your own API tokens',
          ...secured,
        },
      },
      async (req) => tokens.list(own(req).userId).map(tokenView),
    ),
  );

  app.route(
    route(
      'POST /api/tokens',
      {
        schema: {
          tags: ['people'],
          summary: 'Create a personal API token: it is shown this once',
          ...secured,
        },
      },
      async (req, reply) => {
        const c = own(req);
        const b = parseWith(tokenCreateBody, req.body);
        const requested = b.expiresAt === undefined ? undefined : Date.parse(b.expiresAt);
        // A token makes none that outlives it; a signed-in session (a password) may make any.
        const e = newTokenExpiry(requested, ctx.now(), c.via === 'token' ? c.expiresAt : undefined);
        if ('refused' in e) throw new ApiError('BAD_REQUEST', e.refused);
        const t = ctx.transaction(() => tokens.create(c.userId, b.name, e.expiresAt, c.actor));
        reply.code(201);
        return { ...tokenView(t.row), token: t.token };
      },
    ),
  );

  app.route(
    route(
      'DELETE /api/tokens/:id',
      {
        schema: {
          tags: ['people'],
          summary: 'Revoke one of your tokens: it stops working at once',
          ...secured,
        },
      },
      async (req) => {
        const c = own(req);
        const { id } = parseWith(idParams, req.params);
        if (!ctx.transaction(() => tokens.revoke(c.userId, id, c.actor)))
          throw new ApiError('NOT_FOUND', `no token ${id}`);
        ctx.events.recheck();
        return { revoked: id };
      },
    ),
  );
};
