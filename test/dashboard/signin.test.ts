import { createHash } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshot, watchCsp } from '../helpers/browser.ts';
import { haveBinary } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const ADMIN_TOKEN = 'signin-dashboard-admin-token';
const OWNER = { name: 'Omar Owner', email: 'omar@oak-lane.example', password: 'a long owner password' };

describe.skipIf(!haveBinary('chromium'))('dashboard where reads need a sign-in', () => {
  let gw: TestGateway;
  let browser: Browser;

  beforeAll(async () => {
    gw = await startTestGateway({
      auth: {
        tokens: [
          {
            name: 'Setup',
            role: 'admin',
            tokenSha256: createHash('sha256').update(ADMIN_TOKEN).digest('hex'),
          },
        ],
      },
    });
    const res = await fetch(`${gw.httpUrl}/api/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...OWNER, role: 'owner', sites: ['oak-lane'] }),
    });
    expect(res.status).toBeLessThan(300);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await gw?.cleanup();
  });

  it('opens on the sign-in page, then shows the owner their site with the live feed on the session', async () => {
    const csp: string[] = [];
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    watchCsp(page, csp);
    await page.goto(gw.httpUrl);
    await page.waitForURL(/#\/signin$/);
    expect(await page.locator('#view-signin').isVisible()).toBe(true);
    expect(await page.locator('[data-site]').count()).toBe(0);
    await screenshot(page, 'signin-page');
    await page.fill('#signin-email', OWNER.email);
    await page.fill('#signin-password', OWNER.password);
    await page.click('#signin-form button[type="submit"]');
    await page.waitForSelector('[data-site="oak-lane"]');
    await page.waitForSelector('#live[data-state="live"]');
    expect(
      await page.locator('[data-site]').evaluateAll((els) => els.map((e) => e.getAttribute('data-site'))),
    ).toEqual(['oak-lane']);
    // A reload keeps the session: no sign-in page in between.
    await page.reload();
    await page.waitForSelector('[data-site="oak-lane"]');
    expect(await page.locator('#who-name').textContent()).toBe(OWNER.name);
    expect(csp).toEqual([]);
    await page.close();
  });
});
