import { createHash } from 'node:crypto';
import type {} from '@fastify/cookie';
import type { FastifyRequest } from 'fastify';
import { type MeResponse, SCOPED_ROLES, type UserRole } from '../../../shared/src/admin.ts';
import type { Config } from '../config/schema.ts';
import { ADDRESS_THROTTLE, LoginThrottle, throttleKey } from '../loginThrottle.ts';
import type { Accounts, Person } from '../people/accounts.ts';
import { SESSION_COOKIE, type Sessions, sessionKey } from '../people/sessions.ts';
import type { Tokens } from '../people/tokens.ts';
import { ApiError } from './errors.ts';

/** The ranks of the roles that see every site; owners and contractors act as inspectors on their own. */
export const ROLES = ['viewer', 'inspector', 'engineer', 'admin'] as const;
export type Role = (typeof ROLES)[number];
const RANK: Record<UserRole, number> = {
  viewer: 0,
  inspector: 1,
  engineer: 2,
  admin: 3,
  owner: 1,
  contractor: 1,
};

/** What a caller proved who they are with, to check again while a live feed it opened stays open. */
export type Credential =
  | { kind: Extract<MeResponse['via'], 'session'>; key: string }
  | { kind: Extract<MeResponse['via'], 'token'>; id: string }
  | { kind: Extract<MeResponse['via'], 'configuration'> };

export interface Caller {
  name: string;
  role: UserRole;
  /** The sites an owner or contractor may see and act on; undefined: every site. */
  sites?: readonly string[];
  /** What the records it makes name: "Name", or "Name (token: token name)". */
  actor: string;
  via: MeResponse['via'];
  credential: Credential;
  /** When that credential stops working (a session's or a personal token's end); undefined: never. */
  expiresAt?: number;
  userId?: string;
  email?: string;
  tokenName?: string;
}

export interface People {
  accounts: Accounts;
  sessions: Sessions;
  tokens: Tokens;
}

const callerOf = (p: Person, credential: Credential, expiresAt: number, tokenName?: string): Caller => ({
  name: p.name,
  role: p.role,
  ...(SCOPED_ROLES.includes(p.role) ? { sites: p.sites } : {}),
  actor: tokenName ? `${p.name} (token: ${tokenName})` : p.name,
  via: credential.kind,
  credential,
  expiresAt,
  userId: p.id,
  email: p.email,
  ...(tokenName ? { tokenName } : {}),
});

/**
 * Who is asking: a bearer token (one of the configuration's, stored as sha256, or a personal one) or the
 * dashboard's session cookie. An Authorization header that is not a working bearer token is a 401, never a
 * fall-through to the cookie. Roles: viewer < inspector < engineer < admin; an owner or contractor ranks
 * as an inspector on their own sites and sees no other. Wrong tokens slow an address down: after a few,
 * its attempts are refused (429, Retry-After) for a time that doubles with each further wrong one.
 */
export class Auth {
  private byHash = new Map<string, Caller>();
  private readonly throttle = new LoginThrottle(ADDRESS_THROTTLE);
  /** Each request's caller, found once (the Authorization header is checked before the handler runs). */
  private readonly seen = new WeakMap<FastifyRequest, Caller | undefined>();
  constructor(
    tokens: Config['auth']['tokens'],
    private readonly publicView: boolean,
    private readonly onThrottled: () => void = () => {},
    private readonly people?: People,
  ) {
    for (const t of tokens)
      this.byHash.set(t.tokenSha256, {
        name: t.name,
        role: t.role,
        actor: t.name,
        via: 'configuration',
        credential: { kind: 'configuration' },
        tokenName: t.name,
      });
  }

  /** Whether visitors who are not signed in see the public view (http.publicView). */
  get publicViewOn(): boolean {
    return this.publicView;
  }

  /** The caller of a request; throws 401 for an Authorization header that is not a working bearer token. */
  caller(req: FastifyRequest): Caller | undefined {
    if (this.seen.has(req)) return this.seen.get(req);
    const h = req.headers.authorization;
    const sid = req.cookies?.[SESSION_COOKIE];
    const c =
      h !== undefined ? this.presented(bearerToken(h), req.ip) : sid ? this.bySession(sid) : undefined;
    this.seen.set(req, c);
    return c;
  }

  /** The caller of a session cookie, while its account is enabled. */
  bySession(sid: string): Caller | undefined {
    return this.ofSession({ kind: 'session', key: sessionKey(sid) });
  }

  byToken(token: string): Caller | undefined {
    const configured = this.byHash.get(createHash('sha256').update(token).digest('hex'));
    if (configured || !this.people) return configured;
    const t = this.people.tokens.resolve(token);
    return t ? this.ofToken(t.id) : undefined;
  }

  /**
   * The caller again, as the store has it now: undefined once its session ended or its token was revoked
   * or expired, or its account was disabled (its role and sites as they are now otherwise). A configured
   * token lasts as long as the configuration, which changes only with a restart.
   */
  again(c: Caller): Caller | undefined {
    const k = c.credential;
    return k.kind === 'configuration' ? c : k.kind === 'session' ? this.ofSession(k) : this.ofToken(k.id);
  }

  private ofSession(k: { kind: 'session'; key: string }): Caller | undefined {
    const s = this.people?.sessions.byKey(k.key);
    const p = s ? this.people?.accounts.byId(s.userId) : undefined;
    return p && !p.disabled ? callerOf(p, k, s!.expiresAt) : undefined;
  }

  private ofToken(id: string): Caller | undefined {
    const t = this.people?.tokens.working(id);
    const p = t ? this.people?.accounts.byId(t.user_id) : undefined;
    return p && !p.disabled ? callerOf(p, { kind: 'token', id }, t!.expires_at, t!.name) : undefined;
  }

  /** A presented token's caller, or a 401 that says why; a wrong one counts against the address. */
  private presented(token: string, address: string): Caller {
    const c = this.resolve(token, address);
    if (!c)
      throw new ApiError(
        'UNAUTHORIZED',
        'This API token does not work: it is wrong, expired or revoked, or its account is disabled.',
      );
    return c;
  }

  /** A presented token's caller; a wrong one counts against the address, a shut address is refused. */
  private resolve(token: string, address: string): Caller | undefined {
    const key = throttleKey('addr', address);
    const shut = this.throttle.wait(key);
    if (shut > 0) {
      this.onThrottled();
      const sec = Math.ceil(shut / 1000);
      throw new ApiError(
        'TOO_MANY_REQUESTS',
        `too many wrong tokens from this address: try again in ${sec} s`,
        sec,
      );
    }
    const c = this.byToken(token);
    if (!c) this.throttle.failed(key);
    return c;
  }

  /** Throws 401/403 unless the caller holds at least `role` (an owner or contractor: inspector at most). */
  require(req: FastifyRequest, role: Role): Caller {
    const c = this.caller(req);
    if (!c) throw new ApiError('UNAUTHORIZED');
    if (RANK[c.role] < RANK[role] || (c.sites !== undefined && role !== 'viewer' && role !== 'inspector'))
      throw new ApiError('FORBIDDEN', `this needs the ${role} role; you have ${c.role}`);
    return c;
  }

  /** A read: it needs a signed-in person or an API token (a viewer at least). */
  requireRead(req: FastifyRequest): Caller {
    return this.require(req, 'viewer');
  }

  /**
   * A read the public view answers too: with `http.publicView`, a visitor who is not signed in gets
   * undefined (the route then answers the public view, `publicView.ts`); otherwise as `requireRead`.
   */
  readPublic(req: FastifyRequest): Caller | undefined {
    if (this.publicView && this.caller(req) === undefined) return undefined;
    return this.requireRead(req);
  }

  /**
   * For server-sent events only: a browser's EventSource cannot send a header, so the token may also come
   * as `?access_token=` (or the session cookie is used). The gateway logs no URLs.
   */
  requireReadStream(req: FastifyRequest): Caller {
    const q = (req.query ?? {}) as Record<string, unknown>;
    if (typeof q.access_token === 'string' && !req.headers.authorization)
      return this.presented(q.access_token, req.ip);
    return this.requireRead(req);
  }
}

/** The token of an Authorization header; anything but `Bearer <token>` is a 401. */
function bearerToken(header: string): string {
  const m = /^Bearer +(\S+) *$/i.exec(header);
  if (!m)
    throw new ApiError(
      'UNAUTHORIZED',
      'The Authorization header must be "Bearer" followed by an API token: sign in, or send a valid token.',
    );
  return m[1]!;
}

/** Whether a caller may see a site (every site unless they are an owner or contractor). */
export function maySee(c: Caller | undefined, siteId: string): boolean {
  return c?.sites === undefined || c.sites.includes(siteId);
}

/** A site the caller may not see is answered as if it did not exist. */
export function mustSee(c: Caller | undefined, siteId: string, what = `site ${siteId}`): void {
  if (!maySee(c, siteId)) throw new ApiError('NOT_FOUND', `no ${what}`);
}
