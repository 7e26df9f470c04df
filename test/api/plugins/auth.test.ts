/**
 * The first admin's setup form without a browser: a password too short shows the form again, filled in,
 * in words; then the post signs the admin in with a 303, a strict HttpOnly session cookie and a CSRF
 * cookie. The same form in real Chromium is auth.e2e.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../../gateway/src/people/sessions.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

const ADA = { name: 'Ada Administrator', email: 'ada@town.example', password: 'a long admin password' };

describe('the setup form without a browser', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({}, { viewerToken: false });
  });
  afterAll(async () => gw?.cleanup());

  const post = (fields: Record<string, string>) =>
    fetch(`${gw.httpUrl}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
      redirect: 'manual',
    });

  it('shows the form again, filled in, when the password is too short; then signs in with a 303', async () => {
    const code = new URL(gw.setupLink!).searchParams.get('code')!;
    const short = await post({ code, name: ADA.name, email: ADA.email, password: 'short' });
    expect(short.status).toBe(400);
    expect(short.headers.get('content-type')).toContain('text/html');
    const page = await short.text();
    expect(page).toContain('The password needs 10 characters or more.');
    expect(page).toContain(`value="${ADA.email}"`);
    expect(page).not.toContain('BAD_REQUEST');

    const done = await post({ code, ...ADA });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/#/welcome');
    const cookies = done.headers.getSetCookie();
    const session = cookies.find((c) => c.startsWith(`${SESSION_COOKIE}=`));
    expect(session).toMatch(/HttpOnly/i);
    expect(session).toMatch(/SameSite=Strict/i);
    expect(cookies.some((c) => c.startsWith('_csrf='))).toBe(true);
    const me = await fetch(`${gw.httpUrl}/api/auth/me`, {
      headers: { cookie: session!.split(';')[0]! },
    });
    expect(await me.json()).toMatchObject({ name: ADA.name, role: 'admin', via: 'session' });
  });
});
