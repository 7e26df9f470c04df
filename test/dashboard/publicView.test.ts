/**
 * The public view on the dashboard (`http.publicView: true`): a visitor who is not signed in opens the
 * page and sees every site with its duties' states and devices, and the storms, under "Public view — sign
 * in for the site's records" with a link to sign in. Every request the page makes is one the public view
 * answers, and no answer nor any text shown holds a party's name, an address, an e-mail, a photo or a
 * link to a report; a site's page or the alerts lead to the overview. Screenshots public-view-desktop,
 * public-view-phone.
 */
import mqtt from 'mqtt';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC_VIEW_ROUTES } from '../../gateway/src/api/publicView.ts';
import { launchChromium, screenshot, watchPage } from '../helpers/browser.ts';
import { haveBinary, waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway, testConfigInput } from '../helpers/gateway.ts';

const PRIVATE = {
  name: 'Maple Ridge subdivision',
  landowner: { name: 'Lena Landowner', address: '4 Hidden Way, Chester NY', email: 'lena@owner.example' },
  developer: { name: 'Dario Developer LLC', address: '99 Builder Plaza', email: 'dario@dev.example' },
  address: '1 Maple Ridge Road',
  practices: [{ id: 'fence-north', label: 'Silt fence, north boundary', kind: 'silt-fence' as const }],
};
const SECRETS = [
  'Lena Landowner',
  'lena@owner.example',
  '4 Hidden Way',
  'Dario Developer',
  'dario@dev.example',
  '99 Builder Plaza',
  '1 Maple Ridge Road',
  'Silt fence, north boundary',
  '@',
];

/** The public view's routes as patterns of a path ("GET /api/sites/:id" → /api/sites/<one part>). */
const ALLOWED = PUBLIC_VIEW_ROUTES.map(
  (r) => new RegExp(`^${r.slice(4).replace(/:\w+/g, '[^/]+')}$`),
) as RegExp[];

interface Seen {
  method: string;
  path: string;
  status: number;
  body: string;
}

/** Every request of the API the page made, with its answer. */
function watchApi(page: Page, into: Seen[]): void {
  page.on('response', async (res) => {
    const url = new URL(res.url());
    if (!url.pathname.startsWith('/api/')) return;
    const body = await res.text().catch(() => '');
    into.push({ method: res.request().method(), path: url.pathname, status: res.status(), body });
  });
}

describe.skipIf(!haveBinary('chromium'))('the public view on the dashboard', () => {
  let gw: TestGateway;
  let browser: Browser;

  beforeAll(async () => {
    const sites = testConfigInput().sites!.map((s) => (s.id === 'maple-ridge' ? { ...s, ...PRIVATE } : s));
    gw = await startTestGateway({ http: { publicView: true }, sites });
    // A 0.6 in storm an hour ago: a storm and its inspection duty.
    const t0 = Date.now() - 3_600_000;
    const c = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
    });
    for (let i = 0; i <= 60; i++)
      await c.publishAsync(
        'sites/maple-ridge/devices/rg-1/telemetry',
        JSON.stringify({ ts: t0 + i * 60_000, seq: i, rainTips: i }),
        { qos: 1 },
      );
    await c.endAsync();
    await waitFor(
      async () => {
        const list = (await (
          await fetch(`${gw.httpUrl}/api/alerts?rule=storm-inspection`)
        ).json()) as unknown[];
        return list.length > 0 || undefined;
      },
      10_000,
      'the storm alert',
    );
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await gw?.cleanup();
  });

  it.each([
    ['desktop', 1366, 900],
    ['phone', 390, 844],
  ])('shows the sites, duties and storms and nothing private (%s)', async (name, width, height) => {
    const page = await browser.newPage({ viewport: { width, height }, timezoneId: 'America/Chicago' });
    const { errors, csp } = watchPage(page);
    const seen: Seen[] = [];
    watchApi(page, seen);
    await page.goto(gw.httpUrl);
    await page.locator('#overview-body [data-site="maple-ridge"] .duty').first().waitFor();
    expect(page.url()).not.toMatch(/signin/);
    const note = page.locator('#public-note');
    expect(await note.isVisible()).toBe(true);
    expect((await note.textContent())?.trim()).toBe("Public view — sign in for the site's records. Sign in");
    expect(await note.locator('a').getAttribute('href')).toBe('#/signin');
    expect(await page.locator('#live-text').textContent()).toBe('Public view');
    const card = page.locator('#overview-body [data-site="maple-ridge"]');
    expect(await card.locator('h3').textContent()).toBe('Maple Ridge subdivision');
    expect(await card.locator('h3 a').count()).toBe(0);
    expect(await card.locator('.duty-rule').allTextContents()).toContain('Storm inspection');
    // A duty opens nothing (its record is a signed-in person's); the menus are the public view's.
    expect(await card.locator('button.duty-rule').count()).toBe(0);
    const menus = await page.$$eval('nav.tabs a', (links) =>
      links.filter((a) => getComputedStyle(a).display !== 'none').map((a) => a.textContent),
    );
    expect(menus).toEqual(['Overview', 'Storms']);
    await screenshot(page, `public-view-${name}`);

    await page.evaluate(() => {
      location.hash = '#/storms';
    });
    await page.locator('#storms-list [data-storm]').first().waitFor();
    expect(await page.locator('#public-note').isVisible()).toBe(true);
    await page.waitForLoadState('networkidle');
    // The page's words, less the town's public key (public: it says what a report's evidence is signed with).
    const words = async () => {
      const all = await page.locator('body').innerText();
      const key = page.locator('.evidence-key');
      return (await key.count()) ? all.replace(await key.innerText(), '') : all;
    };
    const texts = [await words()];
    // A site's page, the alerts and the inspection form are records: the overview instead.
    for (const hash of ['#/site/maple-ridge', '#/alerts', '#/inspect/maple-ridge', '#/people']) {
      await page.goto(`${gw.httpUrl}/${hash}`);
      await page.reload();
      await page.locator('#overview-body [data-site="maple-ridge"]').waitFor();
      await page.waitForLoadState('networkidle');
      expect(page.url(), hash).toMatch(/#\/overview$/);
      texts.push(await words());
    }
    for (const text of texts) {
      for (const s of SECRETS) expect(text).not.toContain(s);
      expect(text).not.toMatch(/\breport\b/i);
    }
    expect(await page.locator('img, a[href*="report"], a[href*="/photos"]').count()).toBe(0);

    // Every request the page made is one the public view answers, each answered, none with a secret.
    expect(seen.length).toBeGreaterThan(5);
    for (const r of seen) {
      expect(r.method, r.path).toBe('GET');
      expect(
        ALLOWED.some((p) => p.test(r.path)),
        r.path,
      ).toBe(true);
      expect(r.status, r.path).toBe(200);
      for (const s of SECRETS) expect(r.body, `${r.path}: ${s}`).not.toContain(s);
    }
    expect(seen.some((r) => r.path === '/api/storms')).toBe(true);

    // Its link leads to the sign-in page, which leads back to the public view.
    await page.locator('#public-note a').click();
    await page.waitForURL(/#\/signin$/);
    expect(await page.locator('#signin-email').isVisible()).toBe(true);
    expect(await page.locator('#public-note').isVisible()).toBe(false);
    await page.locator('#signin-public a').click();
    await page.locator('#public-note').waitFor();
    expect(errors).toEqual([]);
    expect(csp).toEqual([]);
    await page.close();
  });
});
