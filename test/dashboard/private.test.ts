/**
 * Private by default: a visitor who is not signed in opens the dashboard (overview, a site's page, the
 * alerts, the inspection form) and sees the sign-in page, with nothing private on the page or in any
 * answer the page got, at a desk's size (1366x900) and a phone's (390x844). Screenshots:
 * private-signin-1366x900.png, private-signin-390x844.png.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshot, watchCsp } from '../helpers/browser.ts';
import { haveBinary } from '../helpers/env.ts';
import { startTestGateway, type TestGateway, testConfigInput } from '../helpers/gateway.ts';

const PRIVATE = {
  name: 'Maple Ridge subdivision',
  landowner: { name: 'Lena Landowner', address: '4 Hidden Way, Chester NY', email: 'lena@owner.example' },
  developer: { name: 'Dario Developer LLC', address: '99 Builder Plaza', email: 'dario@dev.example' },
  address: '1 Maple Ridge Road',
};
const SECRETS = [
  'Maple Ridge subdivision',
  'Lena Landowner',
  'lena@owner.example',
  '4 Hidden Way',
  'Dario Developer',
  'dario@dev.example',
  '99 Builder Plaza',
  '1 Maple Ridge Road',
  'oak-lane',
];
/** What the gateway answers anyone: whether it is up, and the key its records are signed with. */
const OPEN = ['/api/health', '/api/evidence/key'];

interface Seen {
  path: string;
  status: number;
  body: string;
}

/** Every answer of the API the page got, with its body. */
function watchApi(page: Page, into: Seen[]): void {
  page.on('response', async (res) => {
    const url = new URL(res.url());
    if (!url.pathname.startsWith('/api/')) return;
    const body = await res.text().catch(() => '');
    into.push({ path: url.pathname, status: res.status(), body });
  });
}

describe.skipIf(!haveBinary('chromium'))('the dashboard to a visitor who is not signed in', () => {
  let gw: TestGateway;
  let browser: Browser;

  beforeAll(async () => {
    const sites = testConfigInput().sites!.map((s) => (s.id === 'maple-ridge' ? { ...s, ...PRIVATE } : s));
    gw = await startTestGateway({ sites });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await gw?.cleanup();
  });

  it.each([
    [1366, 900],
    [390, 844],
  ])('shows the sign-in page and nothing private at %ix%i', async (width, height) => {
    const csp: string[] = [];
    const seen: Seen[] = [];
    const page = await browser.newPage({ viewport: { width, height }, timezoneId: 'America/New_York' });
    watchCsp(page, csp);
    watchApi(page, seen);
    await page.goto(gw.httpUrl);
    await page.waitForURL(/#\/signin$/);
    expect(await page.locator('#view-signin').isVisible()).toBe(true);
    expect(await page.locator('#signin-email').isVisible()).toBe(true);
    expect(await page.locator('[data-site]').count()).toBe(0);
    // No live feed retried in vain: the page says what to do.
    await page.waitForSelector('#live[data-state="signed-out"]');
    expect(await page.locator('#live-text').textContent()).toBe('Sign in to see the sites');
    await screenshot(page, `private-signin-${width}x${height}`);
    for (const hash of ['#/site/maple-ridge', '#/alerts', '#/agenda', '#/inspect/maple-ridge']) {
      await page.goto(`${gw.httpUrl}/${hash}`);
      await page.reload();
      await page.waitForLoadState('networkidle');
      const text = (await page.locator('body').textContent()) ?? '';
      for (const s of SECRETS) expect(text, `${hash}: ${s}`).not.toContain(s);
    }
    // The page asks for nothing private before a sign-in; whatever it asked was refused.
    for (const r of seen) {
      for (const s of SECRETS) expect(r.body, `${r.path}: ${s}`).not.toContain(s);
      if (!OPEN.includes(r.path)) expect(r.status, r.path).toBe(401);
    }
    expect(csp).toEqual([]);
    await page.close();
  });
});
