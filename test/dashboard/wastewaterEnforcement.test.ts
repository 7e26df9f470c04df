/**
 * A wastewater system's order in Chromium, against a real gateway: on an alternative system's page the
 * inspector issues an order to cease use under law 000 (its penalty prefilled from Section 6.010), which
 * shows "not yet served; the appeal window has not started"; then records its service by mail with
 * "Record service" (the time entered in the site's zone, the browser in another), after which the notice
 * shows the appeal to the Local Board of Health until the end of the 15th local day. No console error, no
 * blocked resource, no API code or notice id in the text (screenshots wastewater-order-desktop,
 * record-service-desktop, wastewater-served-phone).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withinDays } from '../../shared/src/days.ts';
import { launchChromium, screenshot, watchCsp } from '../helpers/browser.ts';
import { haveBinary } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { PASSWORD, peopleApi, sha } from '../helpers/people.ts';

const ADMIN_TOKEN = 'wastewater-admin-token';
const DAY = 86_400_000;
const TZ = 'America/New_York';
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1366, height: 900 };

type Notice = {
  id: string;
  status: string;
  law: string;
  orderKind: string;
  servedAt?: string;
  appealBy?: string;
};

describe.skipIf(!haveBinary('chromium'))('a wastewater order and its service on the dashboard', () => {
  let gw: TestGateway;
  let browser: Browser;
  const notices = () =>
    fetch(`${gw.httpUrl}/api/violations?siteId=oak-lane`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    }).then((r) => r.json() as Promise<Notice[]>);

  beforeAll(async () => {
    gw = await startTestGateway({
      sites: [
        {
          id: 'oak-lane',
          name: 'Oak Lane',
          kind: 'alternative-system',
          timezone: TZ,
          landowner: { name: 'Olive Owner', address: '4 Oak Lane, Chester NY 10918' },
          address: '4 Oak Lane',
          devices: [],
        },
      ],
      auth: { tokens: [{ name: 'Ada Admin', role: 'admin', tokenSha256: sha(ADMIN_TOKEN) }] },
    });
    const people = peopleApi(gw.httpUrl, ADMIN_TOKEN);
    await people.account('Ed Enforcer', 'ed@town.example', 'inspector');
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await gw?.cleanup();
  });

  async function signedIn(size: { width: number; height: number }) {
    const page = await browser.newPage({ viewport: size, timezoneId: 'America/Chicago' });
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
    watchCsp(page, problems);
    await page.goto(`${gw.httpUrl}/#/signin`);
    await page.fill('#signin-email', 'ed@town.example');
    await page.fill('#signin-password', PASSWORD);
    await page.click('#signin-form button[type="submit"]');
    await page.waitForFunction(() => location.hash === '#/overview');
    await page.evaluate(() => {
      location.hash = '#/site/oak-lane';
    });
    await page.locator('#site-enforcement .parties').waitFor();
    return { page, problems };
  }

  async function plainWords(page: Page) {
    // biome-ignore lint/performance/useDomNodeTextContent: the words shown, not those of hidden views
    const text = await page.locator('main').innerText();
    for (const n of await notices()) expect(text).not.toContain(n.id);
    expect(text).not.toMatch(/\b[A-Z]{2,}_[A-Z_]+\b|undefined|null|NaN|\[object/);
    return text;
  }

  it('the inspector issues an order to cease use under law 000: not yet served', async () => {
    const { page, problems } = await signedIn(DESKTOP);
    await page.click('.violation-form summary');
    expect(await page.inputValue('#v-penalties')).toContain('civil penalty of not more than ($1,000)');
    expect(await page.locator('#v-order-kind option').allTextContents()).toEqual([
      'Order to correct',
      'Order to cease use',
    ]);
    await page.selectOption('#v-order-kind', 'cease-use');
    await page.fill('#v-nature', 'Effluent surfaces over the absorption field.');
    await page.fill('#v-remedy', 'Stop using the system; pump the tank; repair the field.');
    const day = new Intl.DateTimeFormat('en-CA', { timeZone: TZ }).format(new Date(Date.now() + 5 * DAY));
    await page.fill('#v-due', `${day}T17:00`);
    await screenshot(page, 'wastewater-order-desktop');
    await page.click('#violation-form button[type="submit"]');
    await page.locator('#site-enforcement .violation').waitFor();
    const [n] = await notices();
    expect(n).toMatchObject({ law: '000', orderKind: 'cease-use', status: 'issued' });
    expect(n!.servedAt).toBeUndefined();
    const words = await page.locator('#site-enforcement .violation').textContent();
    expect(words).toContain('Order to cease use of');
    expect(words).toContain('Not yet served; the appeal window has not started.');
    expect(words).toContain('under the on-site wastewater treatment law (law 000)');
    await plainWords(page);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('"Record service": a service by mail, entered in the site zone, starts the 15 local days', async () => {
    const { page, problems } = await signedIn(DESKTOP);
    const item = page.locator('#site-enforcement .violation');
    await item.locator('summary', { hasText: 'Record service' }).click();
    const form = item.locator('.service-form');
    await form.locator('select').selectOption('mail');
    expect(await form.locator('input[type="text"]').first().inputValue()).toBe('Olive Owner');
    // Served this minute, entered in New York time whatever the browser's own zone (Chicago).
    const servedAt = Math.floor(Date.now() / 60_000) * 60_000;
    const local = new Intl.DateTimeFormat('sv-SE', {
      timeZone: TZ,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    })
      .format(new Date(servedAt))
      .replace(' ', 'T');
    await form.locator('input[type="datetime-local"]').fill(local);
    await screenshot(page, 'record-service-desktop');
    await form.locator('button[type="submit"]').click();
    await page.waitForFunction(() =>
      document.querySelector('#enforcement-result')?.textContent?.includes('is recorded'),
    );
    expect(await page.locator('#enforcement-result').textContent()).toBe(
      'The service by mail on Olive Owner is recorded.',
    );
    const [n] = await notices();
    expect(n!.servedAt).toBe(new Date(servedAt).toISOString());
    expect(n!.appealBy).toBe(new Date(withinDays(servedAt, 15, TZ)).toISOString());
    const last = new Intl.DateTimeFormat('en-US', {
      timeZone: TZ,
      month: 'long',
      day: 'numeric',
      year: 'numeric',
    }).format(new Date(withinDays(servedAt, 15, TZ) - 1));
    const words = await page.locator('#site-enforcement .violation').textContent();
    expect(words).toContain(
      `may be appealed to the Local Board of Health within 15 days of service, until the end of ${last}.`,
    );
    expect(words).toContain('By mail on Olive Owner');
    await plainWords(page);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('the served order reads on a phone', async () => {
    const { page, problems } = await signedIn(PHONE);
    await page.locator('#site-enforcement .violation').scrollIntoViewIfNeeded();
    await screenshot(page, 'wastewater-served-phone');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1);
    expect(overflow).toBe(false);
    expect(problems).toEqual([]);
    await page.close();
  });
});
