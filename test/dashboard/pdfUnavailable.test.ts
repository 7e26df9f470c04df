/**
 * The site page's PDF link on a gateway without Chromium, in a real browser: it opens a tab that says why
 * in words and links the printable page, which opens; no error code reaches the person.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asViewer, launchChromium, screenshot } from '../helpers/browser.ts';
import { haveBinary } from '../helpers/env.ts';
import { startTestGateway, type TestGateway, testConfigInput } from '../helpers/gateway.ts';
import { VIEWER_HEADERS } from '../helpers/viewerFetch.ts';

describe.skipIf(!haveBinary('chromium'))('a report PDF link where the gateway has no Chromium', () => {
  let gw: TestGateway;
  let browser: Browser;
  beforeAll(async () => {
    gw = await startTestGateway({ ...testConfigInput(), reports: { chromium: '/nonexistent/chromium' } });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await gw?.cleanup();
  });

  for (const [name, viewport] of [
    ['desktop', { width: 1366, height: 900 }],
    ['phone', { width: 390, height: 844 }],
  ] as const)
    it(`opens a page in words with the printable page's link (${name})`, async () => {
      // Reads need a token: the page reads as the test viewer, and its tabs send the viewer's token
      // (a plain link carries no pasted token; a signed-in person's cookie does the same).
      const ctx = await browser.newContext({
        viewport,
        extraHTTPHeaders: VIEWER_HEADERS,
      });
      try {
        const page = await asViewer(await ctx.newPage());
        await page.goto(`${gw.httpUrl}/#/site/maple-ridge`);
        const link = page.locator('#site-reports a:has-text("PDF")');
        await link.waitFor();
        expect(await link.getAttribute('download')).toBeNull();
        const [tab] = await Promise.all([ctx.waitForEvent('page'), link.click()]);
        await tab.waitForLoadState();
        const text = ((await tab.locator('body').textContent()) ?? '').trim();
        expect(text).toMatch(/^The PDF could not be made/);
        expect(text).toMatch(/Chromium, the program that prints its pages to PDF, is not installed/);
        expect(text).not.toMatch(/PDF_UNAVAILABLE|501|\{"error"/);
        await screenshot(tab, `pdf-unavailable-${name}`);
        await tab.locator('a:has-text("open the printable page")').click();
        await tab.waitForURL(/format=html/);
        expect(await tab.title()).toMatch(/^Compliance report: /);
      } finally {
        await ctx.close();
      }
    });
});
