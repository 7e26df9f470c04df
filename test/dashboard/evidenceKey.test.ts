/**
 * The overview's Evidence section (real gateway, real Chromium at 1366x900 and 390x844): the town's public
 * key in its one-line form, as GET /api/evidence/key gives it, a button that copies it, its fingerprint
 * (the same the verifier and the printed report show) and the words to compare it with the town's. No
 * console error, nothing the Content-Security-Policy blocked.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifierKeyFingerprint } from '../../gateway/src/ledger/checkpoint.ts';
import { asViewer, launchChromium, screenshot, watchPage } from '../helpers/browser.ts';
import { haveBinary } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const SIZES = [
  { name: 'desktop', width: 1366, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;

describe.skipIf(!haveBinary('chromium'))("the overview's Evidence section: the town's public key", () => {
  let gw: TestGateway;
  let browser: Browser;
  let key: { verifierKey: string; fingerprint: string };

  beforeAll(async () => {
    gw = await startTestGateway();
    key = (await (await fetch(`${gw.httpUrl}/api/evidence/key`)).json()) as typeof key;
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await gw?.cleanup();
  });

  it('the API gives the fingerprint of its verifier key', () => {
    expect(key.fingerprint).toBe(verifierKeyFingerprint(key.verifierKey));
    expect(key.fingerprint).toMatch(/^[0-9a-f]{4} [0-9a-f]{4} [0-9a-f]{4} [0-9a-f]{4}$/);
  });

  for (const size of SIZES)
    it(`shows the key, its fingerprint and a copy button (${size.name})`, async () => {
      const context = await browser.newContext({
        viewport: { width: size.width, height: size.height },
        permissions: ['clipboard-read', 'clipboard-write'],
      });
      const page = await asViewer(await context.newPage());
      const watch = watchPage(page);
      await page.goto(`${gw.httpUrl}/#/overview`);
      const line = page.locator('#evidence-key-line');
      await line.waitFor({ timeout: 20_000 });
      expect(await line.textContent()).toBe(key.verifierKey);
      expect(await page.textContent('#evidence-key-fingerprint')).toBe(key.fingerprint);
      const section = (await page.textContent('#overview-evidence')) ?? '';
      expect(section).toMatch(/Compare this fingerprint with the one the town publishes/);
      expect(section).not.toMatch(/undefined|null|\{"/);
      // The key fits the page: no sideways scrolling on a phone.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(size.width);
      await page.click('#evidence-key-copy');
      await expect
        .poll(() => page.textContent('#overview-evidence [role=status]'))
        .toMatch(/^Key (copied|selected)/);
      if ((await page.textContent('#overview-evidence [role=status]'))?.startsWith('Key copied'))
        expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key.verifierKey);
      await page.locator('#overview-evidence').scrollIntoViewIfNeeded();
      await screenshot(page, `evidence-key-${size.name}`, false);
      expect(watch.errors).toEqual([]);
      expect(watch.csp).toEqual([]);
      await context.close();
    });
});
