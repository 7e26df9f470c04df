/**
 * The first admin's setup form (GET /setup, its post to /api/setup) in real Chromium: it signs the new
 * admin in as sign-in does (the session cookie, then the CSRF token from /api/auth/me for writes) and
 * opens the dashboard's overview (through its #/welcome route, which marks the browser as signed in), which names them. A session cookie left in the browser from another
 * store does not stop the form. A link that no longer works answers a page in words, not JSON.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../../../gateway/src/people/sessions.ts';
import { launchChromium, screenshot, watchCsp } from '../../helpers/browser.ts';
import { haveBinary } from '../../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.ts';

const ADA = { name: 'Ada Administrator', email: 'ada@town.example', password: 'a long admin password' };

describe.skipIf(!haveBinary('chromium'))('the first admin setup form', () => {
  let gw: TestGateway;
  let browser: Browser;

  beforeAll(async () => {
    gw = await startTestGateway({}, { viewerToken: false });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await gw?.cleanup();
  });

  it('creates the admin, signs them in and opens the overview, which names them', async () => {
    expect(gw.setupLink).toMatch(/\/setup\?code=/);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    // A session cookie from an earlier store at this address: stale, it must not turn the post into a
    // signed-in write (which would need a CSRF token the form cannot have).
    await context.addCookies([{ name: SESSION_COOKIE, value: 'stale-session-id', url: gw.httpUrl }]);
    const page = await context.newPage();
    const csp: string[] = [];
    watchCsp(page, csp);
    const res = await page.goto(gw.setupLink!);
    expect(res?.status()).toBe(200);
    expect(await page.locator('link[rel="icon"]').getAttribute('href')).toBe('/favicon.svg');
    await page.fill('input[name="name"]', ADA.name);
    await page.fill('input[name="email"]', ADA.email);
    await page.fill('input[name="password"]', ADA.password);
    await screenshot(page, 'setup-form');
    await page.click('button[type="submit"]');
    await page.waitForURL(/#\/overview$/);
    await page.waitForFunction(
      (name) => document.querySelector('#who')?.textContent?.includes(name) ?? false,
      ADA.name,
    );
    expect(await page.locator('#who').textContent()).toContain(ADA.name);
    expect(await page.locator('#signin-link').count()).toBe(0);
    await screenshot(page, 'setup-signed-in');

    // The session is an admin's, and its writes work with the CSRF token /api/auth/me gives it.
    const write = await page.evaluate(async () => {
      const me = (await (await fetch('/api/auth/me')).json()) as { role: string; csrfToken?: string };
      const made = await fetch('/api/users', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': me.csrfToken ?? '' },
        body: JSON.stringify({
          name: 'Ida Inspector',
          email: 'ida@town.example',
          role: 'inspector',
          password: 'an inspector password',
        }),
      });
      return { role: me.role, hasToken: Boolean(me.csrfToken), status: made.status };
    });
    expect(write).toEqual({ role: 'admin', hasToken: true, status: 201 });
    expect(csp).toEqual([]);

    // Used up: the same link now answers a page that says so, in words.
    const again = await page.goto(gw.setupLink!);
    expect(again?.status()).toBe(410);
    expect(await page.locator('h1').textContent()).toBe('This setup link no longer works');
    expect(await page.locator('link[rel="icon"]').getAttribute('href')).toBe('/favicon.svg');
    expect(await page.content()).not.toContain('SETUP_USED');
    await context.close();
  });
});
