/**
 * The Quarantine page in Chromium against the gateway process: an admin sees a device whose clock ran
 * 30 days ahead, with the correction prefilled, releases its reading with it, and sees a device not
 * registered yet among those waiting to be added; the Content-Security-Policy blocks nothing.
 */
import mqtt from 'mqtt';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshot, watchCsp } from '../helpers/browser.ts';
import { type GatewayChild, startGatewayChild } from '../helpers/child.ts';
import { haveBinary, IN_CI, waitFor } from '../helpers/env.ts';
import { faultConfig, T } from '../helpers/faults.ts';
import { testHash } from '../helpers/gateway.ts';

const ADMIN = { name: 'Ada Admin', email: 'ada@town.example', password: 'correct horse battery' };
const DAY = 86_400_000;

describe('dashboard: the quarantine page (gateway process, Chromium)', () => {
  let gw: GatewayChild;
  let browser: Browser;
  const csp: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (IN_CI) expect(haveBinary('chromium'), 'chromium is needed in CI').toBe(true);
    if (!haveBinary('chromium')) return;
    gw = await startGatewayChild(
      faultConfig({
        mqtt: { allowAnonymous: true },
        auth: {
          users: [
            { name: ADMIN.name, email: ADMIN.email, role: 'admin', passwordHash: testHash(ADMIN.password) },
          ],
        },
      }),
    );
    const now = Date.now();
    const rg = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
    });
    await rg.publishAsync(T('rg-1'), JSON.stringify({ ts: now + 30 * DAY, seq: 1, rainTips: 3 }), {
      qos: 1,
    });
    await rg.endAsync();
    const ghost = await mqtt.connectAsync(gw.mqttUrl, { clientId: 'new-gauge' });
    await ghost.publishAsync(T('rg-9'), JSON.stringify({ rainTips: 1 }), { qos: 1 });
    await ghost.endAsync();
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await gw?.cleanup();
  });

  it.runIf(haveBinary('chromium'))(
    'lists the clock ahead and the device waiting to be added, and releases with the correction',
    async () => {
      const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
      page.on('pageerror', (e) => pageErrors.push(e.message));
      watchCsp(page, csp);
      await page.goto(`${gw.httpUrl}/#/signin`);
      await page.fill('#signin-email', ADMIN.email);
      await page.fill('#signin-password', ADMIN.password);
      await page.click('#signin-form button[type="submit"]');
      await page.waitForSelector('nav a[href="#/quarantine"]:not([hidden])', { timeout: 20_000 });
      await page.click('nav a[href="#/quarantine"]');
      const card = page.locator('[data-clock="maple-ridge/rg-1"]');
      await card.waitFor({ timeout: 20_000 });
      expect(await card.textContent()).toMatch(/clock up to 30 d ahead; 1 reading waiting/);
      expect(await card.locator('input[name=days]').inputValue()).toBe('30');
      expect(await page.locator('#quarantine-list').textContent()).toMatch(
        /Devices waiting to be added.*rg-9/s,
      );
      await screenshot(page, 'quarantine-before-release');
      await card.locator('button[type=submit]').click();
      await page
        .locator('#quarantine-done.msg-ok', { hasText: 'Released 1 reading of rg-1: 1 stored' })
        .waitFor({ timeout: 20_000 });
      // The page reloads its list: the clock card is gone and the reading is shown released by the admin.
      await waitFor(
        async () => (await page.locator('[data-clock]').count()) === 0,
        20_000,
        'the clock card gone',
      );
      expect(await page.locator('#quarantine-list').textContent()).toMatch(
        /Released and stored.*Ada Admin, clock back 30 d/s,
      );
      const telemetry = (await (
        await fetch(
          `${gw.httpUrl}/api/telemetry?siteId=maple-ridge&deviceId=rg-1&from=0&to=2100-01-01T00:00:00Z`,
        )
      ).json()) as { readings: unknown[] };
      expect(telemetry.readings).toHaveLength(1);
      await screenshot(page, 'quarantine-after-release');
      expect(csp).toEqual([]);
      expect(pageErrors).toEqual([]);
    },
    90_000,
  );
});
