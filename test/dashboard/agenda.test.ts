/**
 * The agenda page and the milestone form in Chromium, against a real gateway: an owner files a notice from
 * Maple Ridge's page (the form in the site's zone, the answer in words); the officer's agenda then lists
 * it on its day, with the overdue duty first, at a desktop and a phone size, without a console error or a
 * blocked resource (screenshots agenda-desktop, agenda-phone).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshot, watchCsp } from '../helpers/browser.ts';
import { haveBinary } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { PASSWORD, peopleApi, sha } from '../helpers/people.ts';

const ADMIN_TOKEN = 'agenda-admin-token';
const DAY = 86_400_000;

describe.skipIf(!haveBinary('chromium'))('the agenda page and the milestone form', () => {
  let gw: TestGateway;
  let browser: Browser;

  beforeAll(async () => {
    gw = await startTestGateway({
      sites: [
        {
          id: 'maple-ridge',
          name: 'Maple Ridge',
          kind: 'construction',
          timezone: 'America/New_York',
          // Ten days ago: the routine inspection is overdue.
          history: { lastRoutineInspection: new Date(Date.now() - 10 * DAY).toISOString() },
          devices: [],
        },
      ],
      auth: { tokens: [{ name: 'Ada Admin', role: 'admin', tokenSha256: sha(ADMIN_TOKEN) }] },
    });
    const people = peopleApi(gw.httpUrl, ADMIN_TOKEN);
    await people.account('Pat Officer', 'pat@town.example', 'admin');
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

  async function signedIn(email: string, width: number, height: number) {
    const page = await browser.newPage({ viewport: { width, height }, timezoneId: 'America/Chicago' });
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
    return { page, problems };
  }

  const goto = (page: Page, hash: string) =>
    page.evaluate((x) => {
      location.hash = x;
    }, hash);

  it('files a notice from the site page, in the site time zone', async () => {
    const { page, problems } = await signedIn('dana@maple.example', 1366, 900);
    await goto(page, '#/site/maple-ridge');
    await page.locator('#milestone-form').waitFor({ state: 'attached' });
    await page.click('.milestone-form summary');
    await page.selectOption('#m-milestone', 'rough-grading-complete');
    // 3 days ahead at 9:00 AM in New York, whatever the browser's own zone (Chicago).
    const d = new Date(Date.now() + 3 * DAY);
    const day = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' }).format(d);
    await page.fill('#m-at', `${day}T09:00`);
    await page.click('#milestone-form button[type="submit"]');
    await page.waitForFunction(() =>
      document.querySelector('#m-result')?.textContent?.startsWith('Notice filed'),
    );
    expect(await page.locator('#m-result').textContent()).toMatch(
      /^Notice filed: Completion of rough grading at .* 9:00 AM (EDT|EST)\. On time\.$/,
    );
    const notices = (await (await fetch(`${gw.httpUrl}/api/notices`)).json()) as Array<{
      milestone: string;
      at: string;
      filedBy: string;
      late: boolean;
    }>;
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({
      milestone: 'rough-grading-complete',
      filedBy: 'Dana Developer',
      late: false,
    });
    const local = new Intl.DateTimeFormat('en-US', {
      timeZone: 'America/New_York',
      hour: 'numeric',
      minute: '2-digit',
    }).format(new Date(notices[0]!.at));
    expect(local).toBe('9:00 AM');
    // An owner has no agenda link: the agenda is the officer's.
    expect(await page.locator('nav a[href="#/agenda"]').isHidden()).toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  });

  for (const size of [
    { name: 'desktop', width: 1366, height: 900 },
    { name: 'phone', width: 390, height: 844 },
  ])
    it(`lists the agenda, overdue first, at ${size.width}x${size.height}`, async () => {
      const { page, problems } = await signedIn('pat@town.example', size.width, size.height);
      if (size.name === 'desktop') await page.click('nav a[href="#/agenda"]');
      else await goto(page, '#/agenda');
      await page.locator('#agenda-list .agenda-day').first().waitFor({ state: 'attached' });
      await page.waitForLoadState('networkidle');
      const first = page.locator('#agenda-list .agenda-day').first();
      expect(await first.locator('h3').textContent()).toBe('Overdue');
      expect(await first.textContent()).toContain('Maple Ridge');
      const milestone = page.locator('#agenda-list .agenda-milestone');
      expect(await milestone.count()).toBe(1);
      expect(await milestone.textContent()).toContain(
        'Completion of rough grading at Maple Ridge, 9:00 AM: inspect',
      );
      await screenshot(page, `agenda-${size.name}`);
      expect(problems).toEqual([]);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await page.close();
    });
});
