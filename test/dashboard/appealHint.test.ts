/**
 * The appeal's days before a notice is issued: on a wastewater system's page the form says the town's
 * figure for law 000 (`enforcement.wastewaterAppeal`, here 20 days) with its reason, not the law's
 * default; on a construction site, law 001's own 15 days, with no town's choice. The site's answer
 * carries the figure (`appeal`); the public view leaves it out.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, watchPage } from '../helpers/browser.ts';
import { haveBinary } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { PASSWORD, peopleApi, sha } from '../helpers/people.ts';

const ADMIN_TOKEN = 'appeal-hint-admin-token';
const TZ = 'America/New_York';
const REASON = 'the Board of Health meets monthly, and owners need time to engage an engineer.';
const party = { name: 'Olive Owner', address: '4 Oak Lane, Chester NY 10918' };

describe.skipIf(!haveBinary('chromium'))('the days to appeal, shown before a notice is issued', () => {
  let gw: TestGateway;
  let browser: Browser;

  beforeAll(async () => {
    gw = await startTestGateway({
      enforcement: { wastewaterAppeal: { days: 20, reason: REASON } },
      sites: [
        {
          id: 'oak-lane',
          name: 'Oak Lane',
          kind: 'alternative-system',
          timezone: TZ,
          landowner: party,
          devices: [],
        },
        {
          id: 'elm-st',
          name: 'Elm Street',
          kind: 'construction',
          timezone: TZ,
          landowner: party,
          devices: [],
        },
      ],
      auth: { tokens: [{ name: 'Ada Admin', role: 'admin', tokenSha256: sha(ADMIN_TOKEN) }] },
    });
    await peopleApi(gw.httpUrl, ADMIN_TOKEN).account('Ed Enforcer', 'ed@town.example', 'inspector');
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await gw?.cleanup();
  });

  it("answers the site's figure: the town's choice with its reason under law 000, the law's under 001", async () => {
    const site = (id: string) => fetch(`${gw.httpUrl}/api/sites/${id}`).then((r) => r.json());
    expect((await site('oak-lane')).appeal).toEqual({ days: 20, reason: REASON });
    expect((await site('elm-st')).appeal).toEqual({ days: 15 });
  });

  it("says the town's 20 days and its reason on the wastewater form, 15 on the construction site's", async () => {
    const page = await browser.newPage({
      viewport: { width: 1366, height: 900 },
      timezoneId: 'America/Chicago',
    });
    const { errors, csp } = watchPage(page);
    await page.goto(`${gw.httpUrl}/#/signin`);
    await page.fill('#signin-email', 'ed@town.example');
    await page.fill('#signin-password', PASSWORD);
    await page.click('#signin-form button[type="submit"]');
    await page.waitForFunction(() => location.hash === '#/overview');
    const hint = async (id: string) => {
      await page.evaluate((s) => {
        location.hash = `#/site/${s}`;
      }, id);
      await page.locator(`#site-enforcement .violation-form`).waitFor();
      await page.click('.violation-form summary');
      return (await page.locator('#violation-form p.small').first().textContent()) ?? '';
    };
    const wastewater = await hint('oak-lane');
    expect(wastewater).toContain(
      "It may be appealed to the Local Board of Health within 20 days of service (the town's choice: the Board of Health meets monthly, and owners need time to engage an engineer).",
    );
    expect(wastewater).not.toContain('15 days');
    const construction = await hint('elm-st');
    expect(construction).toContain('It may be appealed to the Town within 15 days of service.');
    expect(construction).not.toContain("town's choice");
    expect(errors).toEqual([]);
    expect(csp).toEqual([]);
    await page.close();
  });
});
