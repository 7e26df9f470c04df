/**
 * Accounts (admin) and each person's own API tokens: GET|POST /api/users, PATCH /api/users/{id};
 * GET|POST /api/tokens, DELETE /api/tokens/{id}. A token is answered once, when it is made.
 */
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import {
  tokenCreateBody,
  tokenCreatedResponse,
  tokenResponse,
  userCreateBody,
  userPatchBody,
  userResponse,
} from '../../../../shared/src/admin.ts';
import { EmailTaken, userView } from '../../people/accounts.ts';
import { MAX_TOKEN_DAYS, tokenView } from '../../people/tokens.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { openapi, parseWith } from '../query.ts';

const idParams = z.strictObject({ id: z.string().min(1) });
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

export const peoplePlugin: FastifyPluginAsync<{ ctx: ApiContext }> = async (app, { ctx }) => {
  const { accounts, tokens, sessions } = ctx.people;
  const knownSites = (sites: readonly string[] | undefined) => {
    for (const s of sites ?? [])
      if (!ctx.catalogue.site(s)) throw new ApiError('BAD_REQUEST', `sites: no site ${s}`);
  };

  app.get(
    '/api/users',
    {
      schema: {
        tags: ['people'],
        summary: 'Every account (admin)',
        response: { 200: openapi(z.array(userResponse)) },
        ...secured,
      },
    },
    async (req) => {
      ctx.auth.require(req, 'admin');
      return accounts.list().map(userView);
    },
  );

  app.post(
    '/api/users',
    {
      schema: {
        tags: ['people'],
        summary: 'Create an account (admin)',
        body: openapi(userCreateBody),
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
  );

  app.patch(
    '/api/users/:id',
    {
      schema: {
        tags: ['people'],
        summary: 'Change an account (admin): name, e-mail, role, sites, password, disabled',
        params: openapi(idParams),
        body: openapi(userPatchBody),
        ...secured,
      },
    },
    async (req) => {
      const caller = ctx.auth.require(req, 'admin');
      const { id } = parseWith(idParams, req.params);
      const b = parseWith(userPatchBody, req.body);
      knownSites(b.sites);
      const p = emailChecked(() => ctx.transaction(() => accounts.update(id, b, caller.actor)));
      if (!p) throw new ApiError('NOT_FOUND', `no account ${id}`);
      // A disabled account, or a new password, ends the sessions signed in before.
      if (b.disabled || b.password !== undefined) sessions.closeAll(id);
      return userView(p);
    },
  );

  const own = (req: Parameters<typeof ctx.auth.require>[0]) => {
    const c = ctx.auth.require(req, 'viewer');
    if (!c.userId) throw new ApiError('FORBIDDEN', 'personal tokens belong to accounts: sign in as a person');
    return { ...c, userId: c.userId };
  };

  app.get(
    '/api/tokens',
    {
      schema: {
        tags: ['people'],
        summary: 'Your own API tokens',
        response: { 200: openapi(z.array(tokenResponse)) },
        ...secured,
      },
    },
    async (req) => tokens.list(own(req).userId).map(tokenView),
  );

  app.post(
    '/api/tokens',
    {
      schema: {
        tags: ['people'],
        summary: 'Create a personal API token: it is shown this once',
        body: openapi(tokenCreateBody),
        response: { 201: openapi(tokenCreatedResponse) },
        ...secured,
      },
    },
    async (req, reply) => {
      const c = own(req);
      const b = parseWith(tokenCreateBody, req.body);
      const now = ctx.now();
      const expiresAt = b.expiresAt === undefined ? undefined : Date.parse(b.expiresAt);
      if (expiresAt !== undefined && (expiresAt <= now || expiresAt > now + MAX_TOKEN_DAYS * 86_400_000))
        throw new ApiError(
          'BAD_REQUEST',
          `expiresAt: must be in the future, at most ${MAX_TOKEN_DAYS} days ahead`,
        );
      const t = ctx.transaction(() => tokens.create(c.userId, b.name, expiresAt, c.actor));
      reply.code(201);
      return { ...tokenView(t.row), token: t.token };
    },
  );

  app.delete(
    '/api/tokens/:id',
    {
      schema: {
        tags: ['people'],
        summary: 'Revoke one of your tokens: it stops working at once',
        params: openapi(idParams),
        ...secured,
      },
    },
    async (req) => {
      const c = own(req);
      const { id } = parseWith(idParams, req.params);
      if (!ctx.transaction(() => tokens.revoke(c.userId, id, c.actor)))
        throw new ApiError('NOT_FOUND', `no token ${id}`);
      return { revoked: id };
    },
  );
};
