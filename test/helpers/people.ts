/**
 * People against a running gateway's API: JSON calls, an admin token, accounts created through the admin
 * API, a signed-in browser (its cookies and CSRF token) and personal tokens.
 */
import { createHash } from 'node:crypto';
import { type GatewayChild, startGatewayChild } from './child.ts';
import { faultConfig } from './faults.ts';

export const sha = (t: string) => createHash('sha256').update(t).digest('hex');
export const PASSWORD = 'correct horse battery';

/** A gateway process (reads need a sign-in, the default), with one admin token (named Ada Admin). */
export function signedInGateway(adminToken: string): Promise<GatewayChild> {
  return startGatewayChild(
    faultConfig({
      auth: { tokens: [{ name: 'Ada Admin', role: 'admin', tokenSha256: sha(adminToken) }] },
    }),
  );
}

export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** A signed-in browser: the cookie header it sends, and the headers of a write it makes. */
export interface Browser {
  cookie: string;
  write: Record<string, string>;
}

export function peopleApi(baseUrl: string, adminToken: string) {
  const admin = { authorization: `Bearer ${adminToken}` };
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer> => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    const setCookie = res.headers.getSetCookie();
    const parsed = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
    return { status: res.status, body: setCookie.length ? { ...parsed, setCookie } : parsed };
  };
  const signIn = async (email: string, password = PASSWORD): Promise<Browser> => {
    const r = await call('POST', '/api/auth/login', { email, password });
    if (r.status !== 200) throw new Error(`sign-in of ${email}: ${r.status} ${JSON.stringify(r.body)}`);
    const cookie = (r.body.setCookie as string[]).map((c) => c.split(';')[0]).join('; ');
    return { cookie, write: { cookie, 'x-csrf-token': String(r.body.csrfToken) } };
  };
  /** A new account (through the admin API); its id. */
  const account = async (name: string, email: string, role = 'viewer'): Promise<string> => {
    const r = await call('POST', '/api/users', { name, email, role, password: PASSWORD, sites: [] }, admin);
    if (r.status !== 201) throw new Error(`account ${email}: ${r.status} ${JSON.stringify(r.body)}`);
    return String(r.body.id);
  };
  /** A personal token made in a browser: the token and its id. */
  const token = async (b: Browser, name: string, expiresAt?: number) => {
    const r = await call(
      'POST',
      '/api/tokens',
      { name, ...(expiresAt === undefined ? {} : { expiresAt: new Date(expiresAt).toISOString() }) },
      b.write,
    );
    if (r.status !== 201) throw new Error(`token ${name}: ${r.status} ${JSON.stringify(r.body)}`);
    return { token: String(r.body.token), id: String(r.body.id), expiresAt: String(r.body.expiresAt) };
  };
  return { call, signIn, account, token, admin };
}
