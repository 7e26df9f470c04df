/**
 * Signing in and out: the sign-in page (e-mail and password), the header's account line (who, role,
 * sign out), the pasted token for scripts' tokens, checked before it is kept, and the menus a role sees.
 */
import { ApiError, describeError, getToken, whenUnauthorized } from '../../api.js';
import {
  atLeast,
  forgetToken,
  isAdmin,
  isScoped,
  session,
  sessionExpired,
  signIn,
  signOut,
  useToken,
} from '../../session.js';
import { byId, h, replace } from '../../ui/dom.js';

const ROLE_NAMES = {
  viewer: 'viewer',
  inspector: 'inspector',
  engineer: 'engineer',
  admin: 'administrator',
  owner: 'owner',
  contractor: 'contractor',
} as Record<string, string>;

const wait = (sec: number) =>
  sec >= 90 ? `${Math.ceil(sec / 60)} minutes` : sec === 1 ? '1 second' : `${sec} seconds`;

/**
 * What a refused sign-in means for the person at the keyboard.
 */
export function signInProblem(e: unknown) {
  if (e instanceof ApiError) {
    if (e.status === 401 || e.status === 403)
      return e.code === 'ACCOUNT_DISABLED' || /disabled/i.test(e.message)
        ? 'This account is disabled. Ask an administrator.'
        : 'Wrong e-mail or password. Check both and try again.';
    if (e.status === 429)
      return `Too many failed sign-ins: signing in is paused${
        e.retryAfterSec ? ` for ${wait(e.retryAfterSec)}` : ' for a while'
      }. Try again then.`;
    if (e.status === 400) return 'Enter your e-mail address and your password.';
  }
  return describeError(e);
}

/** @param el @param {string} text @param {'ok' | 'bad' | 'warn' | ''} kind */
function say(el: HTMLElement, text: string, kind: 'ok' | 'bad' | 'warn' | '') {
  el.textContent = text;
  el.className = `msg${kind ? ` msg-${kind}` : ''}`;
}

/** The header: who is signed in and with what role, or a link to the sign-in page; the menus a role sees. */
export function renderAccount() {
  const me = session.me;
  const who = byId('who');
  if (me)
    replace(
      who,
      h('span', { id: 'who-name' }, me.name),
      ' ',
      h('span', { id: 'who-role', class: `badge badge-info` }, ROLE_NAMES[me.role] ?? me.role),
      me.via === 'token' ? h('span', { class: 'small muted' }, ' (API token)') : null,
      me.kept
        ? h('span', { class: 'small muted', id: 'who-kept' }, ' (as kept on this phone: no connection)')
        : null,
    );
  else replace(who, h('a', { href: '#/signin', id: 'signin-link' }, 'Sign in'));
  byId('signout').hidden = me?.via !== 'session';
  // The menus: the admin pages for admins only; tokens for anyone signed in; no inspection form for an owner
  // or a viewer, who cannot record one.
  for (const a of document.querySelectorAll('[data-needs]')) {
    const needs = a.getAttribute('data-needs');
    (a as HTMLElement).hidden =
      needs === 'admin'
        ? !isAdmin(me)
        : needs === 'person'
          ? me?.via !== 'session'
          : needs === 'inspector'
            ? Boolean(me) && !atLeast(me, 'inspector') && me?.role !== 'contractor'
            : false;
  }
  document.body.dataset.scoped = isScoped(me) ? 'true' : 'false';
  byId('overview-h').textContent = isScoped(me) ? 'Your sites and their duties' : "Every site's duties";
  const expired = byId('signin-expired');
  expired.hidden = !session.expired;
  showTokenState();
}

function showTokenState() {
  const has = Boolean(getToken());
  if (!byId('token-state').classList.contains('text-bad'))
    byId('token-state').textContent = has
      ? 'Token checked and saved for this tab.'
      : session.me
        ? ''
        : 'No token: you can look, not act.';
  byId('token-clear').hidden = !has;
  (byId('token') as HTMLInputElement).placeholder = has ? '•••••• (saved)' : 'paste a script token';
}

/**
 * Binds the sign-in form, the sign-out button and the token box.
 */
export function bindSignIn(o: { afterSignIn: () => void; afterSignOut: () => void }) {
  const form = byId('signin-form') as HTMLFormElement;
  const email = byId('signin-email') as HTMLInputElement;
  const password = byId('signin-password') as HTMLInputElement;
  const msg = byId('signin-msg');
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    say(msg, '', '');
    if (!email.value.trim() || !password.value) {
      say(msg, 'Enter your e-mail address and your password.', 'bad');
      (email.value.trim() ? password : email).focus();
      return;
    }
    const button = form.querySelector('button');
    button?.setAttribute('disabled', '');
    try {
      const me = await signIn(email.value.trim(), password.value);
      password.value = '';
      say(msg, `Signed in as ${me.name}.`, 'ok');
      o.afterSignIn();
    } catch (err) {
      say(msg, signInProblem(err), 'bad');
      password.select();
    } finally {
      button?.removeAttribute('disabled');
    }
  });
  byId('signout').addEventListener('click', async () => {
    try {
      await signOut();
    } catch (err) {
      console.warn('signing out failed', err);
    }
    o.afterSignOut();
  });
  whenUnauthorized(() => sessionExpired());

  const tokenForm = byId('token-form');
  const input = byId('token') as HTMLInputElement;
  const state = byId('token-state');
  tokenForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    const v = input.value.trim();
    if (!v) return;
    state.className = 'small';
    state.textContent = 'Checking…';
    try {
      const me = await useToken(v);
      input.value = '';
      state.textContent = `Token checked and saved for this tab: ${me.name} (${ROLE_NAMES[me.role] ?? me.role}).`;
      o.afterSignIn();
    } catch (err) {
      state.className = 'small text-bad';
      state.textContent =
        err instanceof ApiError && err.status === 401
          ? 'That token was not accepted (wrong, expired or revoked): not saved.'
          : `Not saved: ${describeError(err)}`;
      input.select();
    }
  });
  byId('token-clear').addEventListener('click', async () => {
    state.className = 'small';
    await forgetToken().catch((err) => console.warn('reading /api/auth/me failed', err));
    input.focus();
    o.afterSignOut();
  });
}
