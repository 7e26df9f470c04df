/**
 * Signing in and out, who is asking, a person's own password, and the first admin. POST /api/auth/login
 * sets the session cookie (HttpOnly, SameSite=Strict, Secure over HTTPS) and answers the person with a
 * CSRF token that every write made with the cookie must carry as `x-csrf-token` (server.ts checks it).
 * Signing out and changing one's password end the live feeds of the sessions that end. The first admin's
 * setup link opens a server-rendered form (setupPage.ts) that creates the admin and signs them in.
 */
import type {} from '@fastify/cookie';
import type {} from '@fastify/csrf-protection';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { loginBody, passwordChangeBody, setupBody } from '../../../../shared/src/admin.ts';
import { EmailTaken } from '../../people/accounts.ts';
import { SESSION_COOKIE, SESSION_HOURS } from '../../people/sessions.ts';
import type { Caller } from '../auth.ts';
import type { ApiContext } from '../context.ts';
import { ApiError } from '../errors.ts';
import { parseWith } from '../query.ts';
import { route } from '../routes.ts';
import { SIGNED_IN_PATH, setupFormPage, setupUsedPage } from '../setupPage.ts';

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

  /**
   * Opens a session for a person: the session cookie, and a new CSRF secret with it (its token, for
   * sign-in's answer; a page gets one from GET /api/auth/me). Sign-in and the first admin's setup both.
   */
  const signInAs = (req: FastifyRequest, reply: FastifyReply, personId: string) => {
    const s = people.sessions.open(personId);
    reply.setCookie(SESSION_COOKIE, s.id, { ...cookieOptions(secure), maxAge: SESSION_HOURS * 3600 });
    delete req.cookies._csrf;
    return { session: s.id, csrf: reply.generateCsrf() };
  };

  app.route(
    route(
      'POST /api/auth/login',
      {
        schema: {
          tags: ['people'],
          summary: 'Sign in with e-mail and password: sets the session cookie',
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
        const { session, csrf } = signInAs(req, reply, r.person.id);
        return me(ctx.auth.bySession(session)!, csrf);
      },
    ),
  );

  app.route(
    route(
      'POST /api/auth/logout',
      {
        schema: {
          tags: ['people'],
          summary: 'Sign out: ends the session',
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
    ),
  );

  app.route(
    route(
      'GET /api/auth/me',
      {
        schema: {
          tags: ['people'],
          summary: 'Who is asking (bearer token or session), with a CSRF token for a session',
          security: [{ bearer: [] }],
        },
      },
      async (req, reply) => {
        const caller = ctx.auth.caller(req);
        if (!caller) throw new ApiError('UNAUTHORIZED');
        return me(caller, caller.via === 'session' ? reply.generateCsrf() : undefined);
      },
    ),
  );

  app.route(
    route(
      'POST /api/auth/password',
      {
        schema: {
          tags: ['people'],
          summary: 'Change your own password: your other sessions end, this one stays signed in',
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
          throw new ApiError(
            'FORBIDDEN',
            'Your current password is not right: the password was not changed.',
          );
        const keep = caller.credential.kind === 'session' ? caller.credential.key : undefined;
        const ended = ctx.transaction(() => {
          people.accounts.update(caller.userId!, { password: b.newPassword }, caller.actor);
          return people.sessions.closeOthers(caller.userId!, keep);
        });
        ctx.events.recheck();
        return { changed: true, otherSessionsEnded: ended };
      },
    ),
  );

  app.route(
    route(
      'POST /api/setup',
      {
        schema: {
          tags: ['people'],
          summary:
            'Create the first admin with the one-time code of the link the gateway printed at its first start',
          description:
            'As JSON: answers the new account. As the HTML form of `GET /setup`: signs the new admin in (the session cookie, as sign-in sets it) and sends the browser on to the dashboard; a problem shows the form again, or a page saying the link no longer works.',
          also: {
            303: {
              description: 'From the HTML form: signed in, on to the page that opens the dashboard',
              content: { 'text/plain': 'text' },
            },
          },
        },
      },
      async (req, reply) => {
        const form = req.headers['content-type']?.startsWith('application/x-www-form-urlencoded');
        if (form) return setupFromForm(req, reply);
        const b = parseWith(setupBody, req.body);
        const created = createFirstAdmin(b);
        if (!created) throw new ApiError('SETUP_USED', 'this setup link is used up, expired or wrong');
        reply.code(201);
        return { id: created.id, name: created.name, email: created.email, role: created.role };
      },
    ),
  );

  /** The first admin, made with a code that is still good; undefined when the code is not. */
  const createFirstAdmin = (b: z.infer<typeof setupBody>) =>
    ctx.transaction(() => {
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

  /** The HTML form's post: the new admin signed in and sent to the dashboard, or a page saying why not. */
  const setupFromForm = async (req: FastifyRequest, reply: FastifyReply) => {
    const raw = (req.body ?? {}) as Record<string, unknown>;
    const code = typeof raw.code === 'string' ? raw.code : '';
    const values = {
      ...(typeof raw.name === 'string' ? { name: raw.name } : {}),
      ...(typeof raw.email === 'string' ? { email: raw.email } : {}),
    };
    reply.type('text/html; charset=utf-8');
    if (!people.setup.valid(code)) return reply.code(410).send(setupUsedPage());
    const parsed = setupBody.safeParse(raw);
    if (!parsed.success) {
      const field = String(parsed.error.issues[0]?.path[0] ?? '');
      return reply.code(400).send(setupFormPage(code, FORM_PROBLEMS[field] ?? FORM_PROBLEMS.other, values));
    }
    let created: ReturnType<typeof createFirstAdmin>;
    try {
      created = createFirstAdmin(parsed.data);
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 'EMAIL_TAKEN')) throw e;
      return reply.code(409).send(setupFormPage(code, FORM_PROBLEMS.taken, values));
    }
    if (!created) return reply.code(410).send(setupUsedPage());
    signInAs(req, reply, created.id);
    return reply.redirect(SIGNED_IN_PATH, 303);
  };

  // The link the gateway prints: a plain form (no script), posting to /api/setup. Whoever opens it has no
  // account (a code works only while nobody can sign in): a session cookie left from another store is
  // dropped, so the form's post is not taken for a signed-in write.
  app.get('/setup', { schema: { hide: true } }, async (req, reply) => {
    const code = String((req.query as Record<string, unknown>).code ?? '');
    reply.type('text/html; charset=utf-8');
    if (!people.setup.valid(code)) return reply.code(410).send(setupUsedPage());
    if (req.cookies[SESSION_COOKIE]) reply.clearCookie(SESSION_COOKIE, cookieOptions(secure));
    return setupFormPage(code);
  });
};

/** What the setup form says of a field that is not right, in the form's own words. */
const FORM_PROBLEMS: Record<string, string> = {
  name: 'Please give your name.',
  email: 'That e-mail address does not look right.',
  password: 'The password needs 10 characters or more.',
  taken: 'An account with this e-mail address exists already.',
  other: 'Something in the form was not right: please fill it in again.',
};
