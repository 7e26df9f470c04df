import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config/schema.ts';
import { ApiError } from './errors.ts';

export const ROLES = ['viewer', 'inspector', 'engineer', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export interface Caller {
  name: string;
  role: Role;
}

/** Resolves bearer tokens (stored as sha256) to callers, and checks roles: viewer < inspector < engineer < admin. */
export class Auth {
  private byHash = new Map<string, Caller>();
  constructor(
    tokens: Config['auth']['tokens'],
    private readonly authenticateReads: boolean,
  ) {
    for (const t of tokens) this.byHash.set(t.tokenSha256, { name: t.name, role: t.role });
  }

  caller(req: FastifyRequest): Caller | undefined {
    const h = req.headers.authorization;
    if (!h?.startsWith('Bearer ')) return undefined;
    return this.byHash.get(createHash('sha256').update(h.slice(7).trim()).digest('hex'));
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
}
