/**
 * A notice's correction with photos and its approval on a re-inspection, in Chromium against a real
 * gateway, at 1366x900 and 390x844: the owner reports the correction with two photos, shown as
 * thumbnails before they are sent and, once sent, in the notice's history, opening full size; the
 * inspector is not offered "Approve" before the correction, is told to record the re-inspection first
 * while none is made since it, then chooses it (in the site's zone, who, what kind) and approves; the
 * history says on which re-inspection, linking its page. No console error, no API code or id in the text
 * (screenshots correction-photos-desktop|phone, approve-reinspection-desktop|phone).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reinspect } from '../helpers/approval.ts';
import { launchChromium, screenshot, watchCsp } from '../helpers/browser.ts';
import { haveBinary } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { PASSWORD, peopleApi, sha } from '../helpers/people.ts';
import { png } from '../helpers/photos.ts';

const ADMIN_TOKEN = 'correction-admin-token';
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const TZ = 'America/New_York';
const DAY = 86_400_000;
const SIZES = [
  ['desktop', { width: 1366, height: 900 }],
  ['phone', { width: 390, height: 844 }],
] as const;

type Notice = { id: string; status: string; events: Array<Record<string, unknown>> };

describe.skipIf(!haveBinary('chromium'))('a correction with photos, approved on its re-inspection', () => {
  let gw: TestGateway;
  let browser: Browser;
  const notices: Record<string, string> = {};
  const notice = async (id: string) =>
    (await (await fetch(`${gw.httpUrl}/api/violations/${id}`, { headers: admin })).json()) as Notice;

  beforeAll(async () => {
    gw = await startTestGateway({
      sites: [
        {
          id: 'maple-ridge',
          name: 'Maple Ridge',
          kind: 'construction',
          timezone: TZ,
          landowner: { name: 'Rita Landis', address: '12 Orchard Lane, Chester NY 10918' },
          developer: { name: 'Maple Ridge Homes LLC', address: '400 Main Street, Goshen NY 10924' },
          address: 'Lots 4-9, Maple Ridge Road',
          practices: [{ id: 'fence-n', label: 'Silt fence, north boundary', kind: 'silt-fence' }],
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
    for (const [size] of SIZES) {
      const v = await people.call(
        'POST',
        '/api/violations',
        {
          siteId: 'maple-ridge',
          nature: `Silt fence down (${size}).`,
          remedy: 'Reset and trench the silt fence.',
          remedyDueAt: new Date(Date.now() + 5 * DAY).toISOString(),
        },
        people.admin,
      );
      expect(v.status).toBe(201);
      notices[size] = String(v.body.id);
    }
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await gw?.cleanup();
  });

  async function signedIn(email: string, viewport: { width: number; height: number }) {
    const page = await browser.newPage({ viewport, timezoneId: 'America/Chicago' });
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
    await page.locator('#site-enforcement .violation').first().waitFor();
    return { page, problems };
  }

  /** The words shown: no id of a notice or an inspection, no API code. */
  async function plainWords(page: Page) {
    // biome-ignore lint/performance/useDomNodeTextContent: the words shown, not those of hidden views
    const text = await page.locator('main').innerText();
    for (const id of Object.values(notices)) expect(text).not.toContain(id);
    expect(text).not.toMatch(/\b[A-Z]{2,}_[A-Z_]+\b|insp-|undefined|null|NaN|\[object/);
  }

  for (const [size, viewport] of SIZES) {
    it(`the owner reports the correction with two photos, at ${viewport.width}x${viewport.height}`, async () => {
      const { page, problems } = await signedIn('dana@maple.example', viewport);
      const item = page.locator(`[data-violation="${notices[size]}"]`);
      await item.locator('summary', { hasText: 'Report corrected' }).click();
      await item.locator('input[type="file"][id^="corrected-"]').setInputFiles([
        { name: 'fence.png', mimeType: 'image/png', buffer: png(40, 30, [0x3a, 0x7d, 0x44]) },
        { name: 'road.png', mimeType: 'image/png', buffer: png(30, 40, [0x8a, 0x6d, 0x3b]) },
      ]);
      await item.locator('.thumb img').nth(1).waitFor();
      // One removed and chosen again: what is sent is what the thumbnails show.
      await item.locator('.thumb button', { hasText: 'Remove' }).nth(1).click();
      expect(await item.locator('.thumb img').count()).toBe(1);
      await item
        .locator('input[type="file"][id^="corrected-"]')
        .setInputFiles([
          { name: 'road.png', mimeType: 'image/png', buffer: png(30, 40, [0x8a, 0x6d, 0x3b]) },
        ]);
      await item.locator('.thumb img').nth(1).waitFor();
      await item.locator('textarea[id^="corrected-"]').fill('Fence reset and trenched; road swept.');
      await screenshot(page, `correction-photos-${size}`);
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      ).toBeLessThanOrEqual(0);
      await item.locator('form[id^="corrected-"] button[type="submit"]').click();
      await page.waitForFunction(() =>
        document.querySelector('#enforcement-result')?.textContent?.startsWith('Reported corrected'),
      );
      expect(await page.locator('#enforcement-result').textContent()).toBe(
        'Reported corrected with 2 photos: the town will inspect and approve it.',
      );
      const v = await notice(notices[size]!);
      expect(v.status).toBe('corrected');
      const photos = v.events.at(-1)!.photos as string[];
      expect(photos).toHaveLength(2);
      expect(new Set(photos).size).toBe(2);
      // In the history: the photos as thumbnails, each opening full size.
      const again = page.locator(`[data-violation="${notices[size]}"]`);
      const thumbs = again.locator('[data-event="corrected"] .photo-thumb img');
      await thumbs.nth(1).waitFor();
      expect(await thumbs.count()).toBe(2);
      await thumbs.first().click();
      const full = page.locator('dialog.photo-full');
      await full.waitFor();
      expect(await full.getAttribute('aria-label')).toBe('Photo 1 of the correction');
      expect(await full.locator('img').evaluate((i) => (i as HTMLImageElement).naturalWidth)).toBe(40);
      await full.locator('button[aria-label="Close"]').click();
      await full.waitFor({ state: 'detached' });
      await plainWords(page);
      expect(problems).toEqual([]);
      await page.close();
    });

    it(`the inspector approves it on the re-inspection, at ${viewport.width}x${viewport.height}`, async () => {
      const id = notices[size]!;
      const { page, problems } = await signedIn('pat@town.example', viewport);
      const item = page.locator(`[data-violation="${id}"]`);
      // No re-inspection since the correction: the form says to record one, and links the field form.
      const needs = item.locator('.violation-needs-reinspection');
      await needs.waitFor();
      expect(await needs.textContent()).toMatch(
        /^The correction was reported \w{3} \d+, \d{4}, \d+:\d{2} [AP]M E[SD]T\. Approval rests on a re-inspection made since then, and none is recorded yet\. Record the re-inspection, then approve it here\.$/,
      );
      expect(await needs.locator('a').getAttribute('href')).toBe('#/inspect/maple-ridge');
      expect(await item.locator('summary', { hasText: 'Approve' }).count()).toBe(0);
      await page.close();

      const corrected = Date.parse(String((await notice(id)).events.at(-1)!.at));
      // One made before the correction is not offered; the one made after is.
      await reinspect(gw.httpUrl, admin, 'maple-ridge', {
        at: new Date(corrected - 60_000).toISOString(),
        inspector: 'Ivy Early',
      });
      const made = await reinspect(gw.httpUrl, admin, 'maple-ridge', {
        at: new Date().toISOString(),
        inspector: 'Pat Inspector',
      });
      const again = await signedIn('pat@town.example', viewport);
      const form = again.page.locator(`[data-violation="${id}"]`);
      await form.locator('summary', { hasText: 'Approve' }).click();
      const options = await form.locator('select[id^="approve-"] option').allTextContents();
      expect(options).toHaveLength(1);
      for (const o of options)
        expect(o).toMatch(/^\w{3} \d+, \d{4}, \d+:\d{2} [AP]M E[SD]T, other inspection by Pat Inspector$/);
      await form.locator('textarea[id^="approve-"]').fill('Fence and road checked.');
      await screenshot(again.page, `approve-reinspection-${size}`);
      // Nothing wider than the screen: the choice of the re-inspection fits.
      const overflow = await again.page.evaluate(
        () => document.documentElement.scrollWidth - window.innerWidth,
      );
      expect(overflow).toBeLessThanOrEqual(0);
      await form.locator('form[id^="approve-"] button[type="submit"]').click();
      await again.page.waitForFunction(() =>
        document.querySelector('#enforcement-result')?.textContent?.startsWith('The notice is approved'),
      );
      const v = await notice(id);
      expect(v.status).toBe('approved');
      expect(v.events.at(-1)).toMatchObject({
        kind: 'approved',
        inspectionId: made,
        inspectedBy: 'Pat Inspector',
      });
      const said = again.page.locator(`[data-violation="${id}"] .violation-reinspection`);
      await said.waitFor();
      expect(await said.textContent()).toMatch(
        /^Approved by Pat Inspector on \w{3} \d+, \d{4}, \d+:\d{2} [AP]M E[SD]T, on the re-inspection of \w{3} \d+, \d{4}, \d+:\d{2} [AP]M E[SD]T by Pat Inspector\.$/,
      );
      expect(await said.locator('a').getAttribute('href')).toBe(`#/inspections/${encodeURIComponent(made)}`);
      await plainWords(again.page);
      expect(again.problems).toEqual([]);
      expect(problems).toEqual([]);
      await again.page.close();
    });
  }
});
