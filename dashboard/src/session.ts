/** Who is using the page: a person signed in (session cookie), a pasted API token, or nobody. */
import type { MeResponse } from '../../shared/src/admin.ts';
import { ApiError, get, getToken, post, setCsrf, setToken } from './api.js';
import { fieldCopy, forgetFieldCopy, keepFieldPerson } from './field-copy.js';

/** Who is signed in, and how. */
export type Me = Pick<MeResponse, 'name' | 'role' | 'email'> & {
  sites?: MeResponse['sites'];
  via: 'session' | 'token';
  /** Taken from the copy kept on this phone: the gateway could not be reached to confirm it. */
  kept?: boolean;
};

/** Roles in order of what they may do; an owner (or contractor) acts on their own sites only. */
export const RANKED_ROLES = ['viewer', 'inspector', 'engineer', 'admin'];

export const session = {
  me: null as Me | null,
  /** Set once a request was refused because the session ran out (not when the person signed out). */
  expired: false,
  /**
   * Set while who is signed in is not known because the gateway could not be reached (the page opened
   * without a connection); cleared once it answers.
   */
  unreached: false,
};

const listeners: Set<() => void> = new Set();
/**
 * Whether the page has no connection to the gateway: the browser says it is offline, or asking who is
 * signed in could not reach the gateway. The browser's word alone is not enough: right after a reload
 * without a connection it may still say online for a moment, while the gateway's answer never came.
 */
export const noConnection = () => !navigator.onLine || session.unreached;

export function onSessionChange(fn: () => void) {
  listeners.add(fn);
}
function changed() {
  for (const fn of listeners) fn();
}

/**
 * The identity in an answer of /api/auth/me or /api/auth/login, and its CSRF token when it carries one.
 */
function meOf(who: MeResponse, via: 'session' | 'token'): Me {
  if (who.csrfToken !== undefined) setCsrf(who.csrfToken);
  return {
    name: who.name,
    role: who.role,
    sites: who.sites,
    ...(who.email !== undefined ? { email: who.email } : {}),
    via,
  };
}

/**
 * Whether this browser signed in and has not signed out since. The session cookie is HttpOnly (the page
 * cannot see it), so this is what tells a visitor who never signed in from a session that ran out.
 */
const SIGNED_IN_KEY = 'gateway.signedIn';
function remember(on: boolean) {
  try {
    if (on) localStorage.setItem(SIGNED_IN_KEY, '1');
    else localStorage.removeItem(SIGNED_IN_KEY);
  } catch (e) {
    console.warn('local storage is not available', e);
  }
}
/**
 * The first administrator arrives signed in from the gateway's setup form at `#/welcome`: this browser is
 * marked as signed in, as the sign-in form does, and the overview opens.
 */
if (typeof location !== 'undefined' && location.hash === '#/welcome') {
  remember(true);
  history.replaceState(null, '', '#/overview');
}
function remembered() {
  try {
    return localStorage.getItem(SIGNED_IN_KEY) === '1';
  } catch {
    return false;
  }
}

/**
 * A visitor who never signed in and holds no token: the gateway's reads need one, so the page reads
 * nothing and shows the sign-in page.
 */
export const notSignedIn = () => !getToken() && !remembered();

/**
 * Asks the gateway who we are (the saved token, else the session cookie); nobody is `null`. A visitor who
 * never signed in is not asked about (`notSignedIn`): the page shows the sign-in page.
 */
export async function refreshMe() {
  const token = getToken();
  if (!token && !remembered()) {
    session.me = null;
    changed();
    return null;
  }
  try {
    session.me = meOf(await get('GET /api/auth/me', { quiet: true }), token ? 'token' : 'session');
    session.unreached = false;
    if (!token) keepFieldPerson(session.me);
  } catch (e) {
    session.unreached = !(e instanceof ApiError && e.status === 401);
    if (session.unreached) {
      fromCopy(token);
      throw e;
    }
    // A remembered session the gateway no longer knows: it expired (or was ended elsewhere).
    if (!token && remembered()) session.expired = true;
    remember(false);
    session.me = null;
  }
  changed();
  return session.me;
}

/**
 * The gateway cannot be reached: a person signed in on this browser, not known yet, is taken from the
 * copy kept on this phone (their name, role and sites), so the inspection form opens for them. A
 * script's token is never kept: a tab with one stays as it is.
 */
function fromCopy(token: string) {
  if (session.me || token || !remembered()) return;
  const person = fieldCopy()?.person;
  if (!person) return;
  session.me = { ...person, via: 'session', kept: true };
  changed();
}

let probe: ReturnType<typeof setTimeout> | undefined;
let probes = 0;
/**
 * While the gateway cannot be reached: who is signed in is asked again, soon and then less often (every
 * 30 s at the least), until the gateway answers (`onSessionChange` listeners hear it). `now`: at once (the
 * browser says the connection is back).
 */
export function probeGateway(now = false) {
  if (!session.unreached || (probe !== undefined && !now)) return;
  clearTimeout(probe);
  probe = setTimeout(
    () => {
      probe = undefined;
      // Offline by the browser's word: the connection's return ('online') asks at once.
      if (!navigator.onLine) return;
      refreshMe().then(
        () => {
          probes = 0;
        },
        (e) => {
          console.warn('the gateway cannot be reached yet', e);
          probes += 1;
          probeGateway();
        },
      );
    },
    now ? 0 : Math.min(30_000, 2_000 * 2 ** probes),
  );
}

/**
 * Checks a pasted token with /api/auth/me before keeping it: a wrong one is never "saved".
 */
export async function useToken(token: string): Promise<Me> {
  const me = meOf(await get('GET /api/auth/me', { token, quiet: true }), 'token');
  setToken(token);
  session.me = me;
  session.expired = false;
  changed();
  return me;
}

/** Forgets the pasted token; the session cookie, if any, applies again. */
export async function forgetToken() {
  setToken('');
  await refreshMe();
}

export async function signIn(email: string, password: string) {
  const body = await post('POST /api/auth/login', { body: { email, password }, quiet: true });
  setToken('');
  remember(true);
  session.me = meOf(body, 'session');
  session.expired = false;
  // The login's answer may leave out what /api/auth/me tells (the CSRF token, the e-mail).
  await refreshMe().catch((e) => console.warn('reading /api/auth/me after sign-in failed', e));
  if (!session.me) session.me = meOf(body, 'session');
  keepFieldPerson(session.me);
  changed();
  return session.me;
}

export async function signOut() {
  try {
    await post('POST /api/auth/logout');
  } finally {
    remember(false);
    forgetFieldCopy();
    setCsrf('');
    session.me = null;
    session.expired = false;
    changed();
  }
}

/** The session ran out (a 401 while signed in): the page says so and offers the sign-in form. */
export function sessionExpired() {
  if (session.me?.via !== 'session') return;
  remember(false);
  session.me = null;
  session.expired = true;
  setCsrf('');
  changed();
}

export const isAdmin = (me: Me | null) => me?.role === 'admin';

/**
 * Whether `me` holds at least `role` (owners and contractors hold no ranked role: scoped to their sites).
 */
export function atLeast(me: Me | null, role: string) {
  if (!me) return false;
  const i = RANKED_ROLES.indexOf(me.role);
  return i >= 0 && i >= RANKED_ROLES.indexOf(role);
}

export const isScoped = (me: Me | null) => Boolean(me) && !RANKED_ROLES.includes((me as Me).role);
