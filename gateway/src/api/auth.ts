import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config/schema.ts';
import { ADDRESS_THROTTLE, LoginThrottle, throttleKey } from '../loginThrottle.ts';
import { ApiError } from './errors.ts';

export const ROLES = ['viewer', 'inspector', 'engineer', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export interface Caller {
  name: string;
  role: Role;
}

/**
 * Resolves bearer tokens (stored as sha256) to callers, and checks roles: viewer < inspector < engineer <
 * admin. Wrong tokens slow an address down: after a few, its attempts are refused (429, Retry-After)
 * for a time that doubles with each further wrong one (loginThrottle.ts).
 */
export class Auth {
  private byHash = new Map<string, Caller>();
  private readonly throttle = new LoginThrottle(ADDRESS_THROTTLE);
  constructor(
    tokens: Config['auth']['tokens'],
    private readonly authenticateReads: boolean,
    private readonly onThrottled: () => void = () => {},
  ) {
    for (const t of tokens) this.byHash.set(t.tokenSha256, { name: t.name, role: t.role });
  }

  /** Whether reads need a token (http.authenticateReads). */
  get readsNeedToken(): boolean {
    return this.authenticateReads;
  }

  caller(req: FastifyRequest): Caller | undefined {
    const h = req.headers.authorization;
    if (!h?.startsWith('Bearer ')) return undefined;
    return this.resolve(h.slice(7).trim(), req.ip);
  }

  byToken(token: string): Caller | undefined {
    return this.byHash.get(createHash('sha256').update(token).digest('hex'));
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

  /** Throws 401/403 unless the caller holds at least `role`. */
  require(req: FastifyRequest, role: Role): Caller {
    const c = this.caller(req);
    if (!c) throw new ApiError('UNAUTHORIZED');
    if (ROLES.indexOf(c.role) < ROLES.indexOf(role))
      throw new ApiError('FORBIDDEN', `this needs the ${role} role; your token has ${c.role}`);
    return c;
  }

  /** Reads are open unless `http.authenticateReads` is set. */
  requireRead(req: FastifyRequest): void {
    if (this.authenticateReads) this.require(req, 'viewer');
  }

  /**
   * For server-sent events only: a browser's EventSource cannot send a header, so the token may also come
   * as `?access_token=`. The gateway logs no URLs.
   */
  requireReadStream(req: FastifyRequest): void {
    if (!this.authenticateReads) return;
    const q = (req.query ?? {}) as Record<string, unknown>;
    if (typeof q.access_token === 'string' && !req.headers.authorization) {
      if (!this.resolve(q.access_token, req.ip)) throw new ApiError('UNAUTHORIZED');
      return;
    }
    this.require(req, 'viewer');
  }
}
