/**
 * The "Records" part of a construction site's page, in Chromium against the real gateway: the developer
 * (an owner of the site) records a contractor's certification with the law's statement and the SWPPP on
 * site, on a phone; the duty "no certification on file" is met; the officer (an inspector) records the
 * final acceptance on a desktop, which opens the one-year inspection. No console error, no blocked
 * resource, no API code in the words (screenshots: records-site-phone, records-site-desktop).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshot, watchCsp } from '../helpers/browser.ts';
import { haveBinary } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { PASSWORD, peopleApi, sha } from '../helpers/people.ts';

const ADMIN_TOKEN = 'records-admin-token';
const TZ = 'America/New_York';
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1366, height: 900 };

describe.skipIf(!haveBinary('chromium'))("the site's records", () => {
  let gw: TestGateway;
  let browser: Browser;
  const api = (path: string) =>
    fetch(`${gw.httpUrl}${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }).then(
      (r) => r.json() as Promise<unknown>,
    );
  const alerts = async (rule: string) =>
    (await api(`/api/alerts?siteId=maple-ridge&rule=${rule}`)) as Array<{ status: string; dueAt: string }>;

  beforeAll(async () => {
    gw = await startTestGateway({
      sites: [
        {
          id: 'maple-ridge',
          name: 'Maple Ridge',
          kind: 'construction',
          timezone: TZ,
          address: 'Lots 4-9, Maple Ridge Road',
          devices: [],
        },
      ],
      auth: { tokens: [{ name: 'Ada Admin', role: 'admin', tokenSha256: sha(ADMIN_TOKEN) }] },
    });
    const people = peopleApi(gw.httpUrl, ADMIN_TOKEN);
    await people.account('Pat Inspector', 'pat@town.example', 'inspector');
    const r = await people.call(
      'POST',
      '/api/users',
      {
        name: 'Dana Developer',
        email: 'dana@maple.example',
        role: 'owner',
        password: PASSWORD,
        sites: ['maple-ridge'],
      },
      people.admin,
    );
    expect(r.status).toBe(201);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await gw?.cleanup();
  });

  async function signedIn(email: string, size: { width: number; height: number }) {
    const page = await browser.newPage({ viewport: size, timezoneId: 'America/Chicago' });
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
    watchCsp(page, problems);
    await page.goto(`${gw.httpUrl}/#/signin`);
    await page.fill('#signin-email', email);
    await page.fill('#signin-password', PASSWORD);
    await page.click('#signin-form button[type="submit"]');
    await page.waitForFunction(() => location.hash === '#/overview');
    await page.evaluate(() => {
      location.hash = '#/site/maple-ridge';
    });
    await page.locator('#site-records #records-h').waitFor();
    return { page, problems };
  }

  it("the developer records a contractor's certification and the SWPPP, on a phone", async () => {
    expect((await alerts('contractor-certification')).map((a) => a.status)).toEqual(['open']);
    const { page, problems } = await signedIn('dana@maple.example', PHONE);
    expect(await page.locator('#site-records').textContent()).toContain('No records on file yet.');
    await page.click('#cert-form >> xpath=.. >> summary');
    expect(await page.locator('#cert-form .statement').textContent()).toContain(
      'I certify under penalty of law that I understand and agree to comply',
    );
    // A line left empty is refused in words, before anything is sent.
    await page.click('#cert-form button[type="submit"]');
    expect(await page.locator('#cert-form .msg').textContent()).toBe(
      'Fill in every line of the certification, as signed.',
    );
    await page.fill('#rec-name', 'Jane Roe');
    await page.fill('#rec-title', 'Superintendent');
    await page.fill('#rec-firm', 'Acme Excavating Inc.');
    await page.fill('#rec-firm-address', '12 Quarry Rd, Chester NY');
    await page.fill('#rec-phone', '845-555-0142');
    await page.click('#cert-form button[type="submit"]');
    await page.waitForFunction(() =>
      document
        .querySelector('#records-result')
        ?.textContent?.startsWith("Contractor's certification recorded"),
    );
    await page.click('#swppp-form >> xpath=.. >> summary');
    await page.fill('#swppp-kept-by', 'Jane Roe');
    await page.fill('#swppp-where', 'the site trailer, plan rack');
    await page.click('#swppp-form button[type="submit"]');
    await page.waitForFunction(() =>
      document.querySelector('#records-result')?.textContent?.startsWith('SWPPP kept on site recorded'),
    );
    const text = await page.locator('#site-records').textContent();
    expect(text).toContain(
      'Jane Roe, Superintendent, Acme Excavating Inc. (12 Quarry Rd, Chester NY; 845-555-0142)',
    );
    expect(text).toContain('kept by Jane Roe, the site trailer, plan rack');
    expect(text).not.toMatch(/\b[A-Z]{2,}_[A-Z_]+\b|undefined|null|NaN|\[object/);
    // The developer may not record the officer's acceptance: no form for it.
    expect(await page.locator('#accept-form').count()).toBe(0);
    expect((await alerts('contractor-certification')).map((a) => a.status)).toEqual(['resolved']);
    expect((await alerts('swppp-on-site')).map((a) => a.status)).toEqual(['resolved']);
    await screenshot(page, 'records-site-phone');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('the officer records the final acceptance, which opens the one-year inspection, at 1366x900', async () => {
    const { page, problems } = await signedIn('pat@town.example', DESKTOP);
    await page.click('#accept-form >> xpath=.. >> summary');
    await page.click('#accept-form button[type="submit"]');
    await page.waitForFunction(() =>
      document.querySelector('#records-result')?.textContent?.startsWith('Final acceptance recorded'),
    );
    const [duty] = await alerts('acceptance-inspection');
    expect(duty?.status).toBe('open');
    // Due at the end of the same date a year later, in New York.
    const due = new Date(duty!.dueAt);
    const year = Number(
      new Intl.DateTimeFormat('en-US', { timeZone: TZ, year: 'numeric' }).format(Date.now()),
    );
    expect(
      Number(new Intl.DateTimeFormat('en-US', { timeZone: TZ, year: 'numeric' }).format(due.getTime() - 1)),
    ).toBe(year + 1);
    expect(await page.locator('#site-records li[data-record]').count()).toBe(3);
    await screenshot(page, 'records-site-desktop');
    expect(problems).toEqual([]);
    await page.close();
  });
});
