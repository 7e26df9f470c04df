/**
 * Signing in and out, who is asking, a person's own password, and the first admin. POST /api/auth/login
 * sets the session cookie (HttpOnly, SameSite=Strict, Secure over HTTPS) and answers the person with a
 * CSRF token that every write made with the cookie must carry as `x-csrf-token` (server.ts checks it).
 * Signing out and changing one's password end the live feeds of the sessions that end.
 */
import type {} from '@fastify/cookie';
import type {} from '@fastify/csrf-protection';
import type { FastifyPluginAsync } from 'fastify';
import { loginBody, meResponse, passwordChangeBody, setupBody } from '../../../../shared/src/admin.ts';
import { okSchema, passwordChangedSchema, setupDoneSchema } from '../../../../shared/src/api.ts';
import { EmailTaken } from '../../people/accounts.ts';
import { SESSION_COOKIE, SESSION_HOURS } from '../../people/sessions.ts';
import type { Caller } from '../auth.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { openapi, parseWith } from '../query.ts';
import { answers } from '../responses.ts';

const me = (c: Caller, csrfToken?: string) => ({
  name: c.name,
  role: c.role,
  sites: c.sites ? [...c.sites] : null,
  ...(c.email ? { email: c.email } : {}),
  via: c.via,
  ...(c.tokenName ? { tokenName: c.tokenName } : {}),
  ...(csrfToken ? { csrfToken } : {}),
});

export const cookieOptions = (secure: boolean) => ({
  httpOnly: true,
  sameSite: 'strict' as const,
  secure,
  path: '/',
});

/** What sign-in, sign-out and the first admin's setup use. */
export type AuthServices = Pick<ApiContext, 'auth' | 'config' | 'events' | 'people' | 'transaction'>;

export const authPlugin: FastifyPluginAsync<AuthServices> = async (app, ctx) => {
  const secure = ctx.config.http.tls !== undefined;
  const { people } = ctx;

  app.post(
    '/api/auth/login',
    {
      schema: {
        tags: ['people'],
        summary: 'Sign in with e-mail and password: sets the session cookie',
        body: openapi(loginBody),
        response: answers({ 200: meResponse }),
      },
    },
    async (req, reply) => {
      const b = parseWith(loginBody, req.body);
      const r = await people.signIn.check(b.email, b.password, req.ip);
      if (!r.ok && r.reason === 'throttled')
        throw new ApiError(
          'TOO_MANY_REQUESTS',
          `too many failed sign-ins: try again in ${r.retryAfterSec} s`,
          r.retryAfterSec,
        );
      if (!r.ok) throw new ApiError('UNAUTHORIZED', 'wrong e-mail or password');
      const s = people.sessions.open(r.person.id);
      reply.setCookie(SESSION_COOKIE, s.id, { ...cookieOptions(secure), maxAge: SESSION_HOURS * 3600 });
      // A new CSRF secret with each session.
      delete req.cookies._csrf;
      const csrf = reply.generateCsrf();
      return me(ctx.auth.bySession(s.id)!, csrf);
    },
  );

  app.post(
    '/api/auth/logout',
    {
      schema: {
        tags: ['people'],
        summary: 'Sign out: ends the session',
        response: answers({ 200: okSchema }),
      },
    },
    async (req, reply) => {
      const sid = req.cookies[SESSION_COOKIE];
      if (sid) people.sessions.close(sid);
      ctx.events.recheck();
      reply.clearCookie(SESSION_COOKIE, cookieOptions(secure));
      reply.clearCookie('_csrf', cookieOptions(secure));
      return { ok: true };
    },
  );

  app.get(
    '/api/auth/me',
    {
      schema: {
        tags: ['people'],
        summary: 'Who is asking (bearer token or session), with a CSRF token for a session',
        security: [{ bearer: [] }],
        response: answers({ 200: meResponse }),
      },
    },
    async (req, reply) => {
      const caller = ctx.auth.caller(req);
      if (!caller) throw new ApiError('UNAUTHORIZED');
      return me(caller, caller.via === 'session' ? reply.generateCsrf() : undefined);
    },
  );

  app.post(
    '/api/auth/password',
    {
      schema: {
        tags: ['people'],
        summary: 'Change your own password: your other sessions end, this one stays signed in',
        body: openapi(passwordChangeBody),
        response: answers({ 200: passwordChangedSchema }),
        security: [{ bearer: [] }],
      },
    },
    async (req) => {
      const caller = ctx.auth.require(req, 'viewer');
      if (!caller.userId || !caller.email)
        throw new ApiError(
          'FORBIDDEN',
          'Only a person signed in to their own account can change its password.',
        );
      const b = parseWith(passwordChangeBody, req.body);
      const r = await people.signIn.check(caller.email, b.currentPassword, req.ip);
      if (!r.ok && r.reason === 'throttled')
        throw new ApiError(
          'TOO_MANY_REQUESTS',
          `too many wrong passwords: try again in ${r.retryAfterSec} s`,
          r.retryAfterSec,
        );
      if (!r.ok || r.person.id !== caller.userId)
        throw new ApiError('FORBIDDEN', 'Your current password is not right: the password was not changed.');
      const keep = caller.credential.kind === 'session' ? caller.credential.key : undefined;
      const ended = ctx.transaction(() => {
        people.accounts.update(caller.userId!, { password: b.newPassword }, caller.actor);
        return people.sessions.closeOthers(caller.userId!, keep);
      });
      ctx.events.recheck();
      return { changed: true, otherSessionsEnded: ended };
    },
  );

  app.post(
    '/api/setup',
    {
      schema: {
        tags: ['people'],
        summary: 'Create the first admin with the one-time code the gateway logged at its first start',
        body: openapi(setupBody),
        response: answers({
          201: setupDoneSchema,
          302: { description: 'From the HTML form: on to the dashboard', content: { 'text/plain': 'text' } },
        }),
      },
    },
    async (req, reply) => {
      const form = req.headers['content-type']?.startsWith('application/x-www-form-urlencoded');
      const b = parseWith(setupBody, req.body);
      const created = ctx.transaction(() => {
        if (!people.setup.use(b.code)) return undefined;
        try {
          return people.accounts.create(
            { name: b.name, email: b.email, role: 'admin', sites: [], password: b.password },
            'setup',
          );
        } catch (e) {
          if (e instanceof EmailTaken) throw new ApiError('EMAIL_TAKEN', e.message);
          throw e;
        }
      });
      if (!created) throw new ApiError('SETUP_USED', 'this setup link is used up, expired or wrong');
      if (form) return reply.redirect('/');
      reply.code(201);
      return { id: created.id, name: created.name, email: created.email, role: created.role };
    },
  );

  // The link the gateway logs: a plain form (no script), posting to /api/setup.
  app.get('/setup', { schema: { hide: true } }, async (req, reply) => {
    const code = String((req.query as Record<string, unknown>).code ?? '');
    if (!people.setup.valid(code))
      throw new ApiError('SETUP_USED', 'this setup link is used up, expired or wrong');
    reply.type('text/html; charset=utf-8');
    return setupPage(code);
  });
};

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function setupPage(code: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Create the first admin</title>
<link rel="stylesheet" href="/style.css"></head><body><main><h1>Create the first admin</h1>
<form method="post" action="/api/setup"><input type="hidden" name="code" value="${esc(code)}">
<label>Name <input name="name" required></label><label>E-mail <input name="email" type="email" required></label>
<label>Password (10 characters or more) <input name="password" type="password" minlength="10" required></label>
<button type="submit">Create</button></form></main></body></html>`;
}
