/**
 * One clock, one vocabulary, in a real browser whose own zone is UTC, at 1366x900 and 390x844: the
 * overview's "updated", the tokens page and the Changes page's filter and records are told in the sites'
 * zone (America/New_York, named EST or EDT), never UTC; a site's parameters are labelled in words with
 * their unit and their law, choices in words, and only those of the site's kind (a construction site
 * shows no septic parameter, an alternative system no storm parameter). No console error.
 */
import { createHash } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshot, watchCsp } from '../helpers/browser.ts';
import { haveBinary } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const TOKEN = 'one-clock-admin-token';
const ADMIN = { name: 'Ada Admin', email: 'ada@town.example', password: 'correct horse battery' };
const ZONE = /\bE[SD]T\b/;

describe.skipIf(!haveBinary('chromium'))('dashboard: one clock, one vocabulary', () => {
  let gw: TestGateway;
  let browser: Browser;

  beforeAll(async () => {
    gw = await startTestGateway({
      auth: {
        tokens: [
          { name: 'Setup', role: 'admin', tokenSha256: createHash('sha256').update(TOKEN).digest('hex') },
        ],
      },
    });
    const res = await fetch(`${gw.httpUrl}/api/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ...ADMIN, role: 'admin' }),
    });
    expect(res.ok).toBe(true);
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await gw?.cleanup();
  });

  /** The visible labels and options of the site edit form's rule parameters. */
  async function paramWords(page: Page, site: string) {
    await page.goto(`${gw.httpUrl}/#/manage`);
    await page.click(`[data-manage-site="${site}"] button:has-text("Edit")`);
    await page.waitForSelector('#site-edit');
    await page.click('#site-edit details[data-group="Rule parameters"] > summary');
    return page.evaluate(() => {
      const box = document.querySelector('#site-edit details[data-group="Rule parameters"]') as HTMLElement;
      const shown = (el: Element) => (el as HTMLElement).offsetParent !== null;
      return {
        labels: [...box.querySelectorAll('label')].filter(shown).map((l) => l.textContent ?? ''),
        options: [...box.querySelectorAll('select')]
          .filter(shown)
          .flatMap((s) => [...s.querySelectorAll('option')].map((o) => o.textContent ?? '')),
        ids: [...box.querySelectorAll('input, select, textarea')].filter(shown).map((e) => e.id),
        text: box.innerText,
      };
    });
  }

  for (const [name, viewport] of [
    ['desktop', { width: 1366, height: 900 }],
    ['phone', { width: 390, height: 844 }],
  ] as const)
    it(`shows times in the sites' zone and parameters in words (${name})`, async () => {
      const ctx = await browser.newContext({ viewport, timezoneId: 'UTC' });
      const page = await ctx.newPage();
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(`console: ${m.text()}`);
      });
      watchCsp(page, problems);
      try {
        await page.goto(`${gw.httpUrl}/#/signin`);
        await page.fill('#signin-email', ADMIN.email);
        await page.fill('#signin-password', ADMIN.password);
        await page.click('#signin-form button[type="submit"]');
        await page.waitForSelector('#who-name:has-text("Ada Admin")');
        expect(await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone)).toBe('UTC');

        // The overview: "updated" in the sites' zone.
        await page.goto(`${gw.httpUrl}/#/overview`);
        await page.waitForSelector('#overview-summary:has-text("updated")');
        const summary = (await page.textContent('#overview-summary')) ?? '';
        expect(summary).toMatch(new RegExp(`updated .*${ZONE.source}`));
        expect(summary).not.toMatch(/UTC/);
        await screenshot(page, `one-clock-overview-${name}`);

        // The tokens page: a token made now, its times in the sites' zone.
        await page.goto(`${gw.httpUrl}/#/tokens`);
        await page.fill('#token-add-name', `tablet-${name}`);
        await page.click('#token-add button[type="submit"]');
        await page.waitForSelector(`#tokens-list td:has-text("tablet-${name}")`);
        await page.keyboard.press('Escape');
        const row = (await page.textContent(`#tokens-list tr:has-text("tablet-${name}")`)) ?? '';
        expect(row).toMatch(ZONE);
        expect(await page.textContent('#tokens-add')).toMatch(/America\/New_York/);
        expect(await page.textContent('#view-tokens, main')).not.toMatch(/UTC/);
        await screenshot(page, `one-clock-tokens-${name}`);

        // The Changes page: its filter's days and its records in the sites' zone (a new account is a
        // gateway-wide change).
        await page.goto(`${gw.httpUrl}/#/changes`);
        await page.waitForSelector('#changes-list :text("Ada Admin")');
        expect(await page.textContent('#c-from-label')).toBe('From (day, America/New_York)');
        const changes = (await page.textContent('#changes-list')) ?? '';
        expect(changes).toMatch(ZONE);
        expect(changes).not.toMatch(/UTC/);
        await screenshot(page, `one-clock-changes-${name}`);

        // A construction site's parameters: in words, with units and the law, none of a septic system.
        const construction = await paramWords(page, 'maple-ridge');
        expect(construction.labels).toContain('Rain that calls for a storm inspection (in)');
        expect(construction.labels).toContain('Days between routine inspections (days)');
        expect(construction.text).toMatch(/From the law: 001, maintenance during construction, A\(2\)/);
        expect(construction.options).toContain('the last rain of the storm');
        expect(construction.options).not.toContain('end');
        expect(construction.options).not.toContain('threshold');
        expect(construction.ids).not.toContain('site-edit-septicPumping-fraction');
        expect(construction.text).not.toMatch(/septic|sludge|absorption|alarm/i);
        for (const l of construction.labels) {
          expect(l).not.toMatch(/[a-z][A-Z]/);
          expect(l).not.toMatch(/^[a-z]+: /);
        }
        await screenshot(page, `one-clock-construction-params-${name}`);
        await page.keyboard.press('Escape');

        // An alternative system's: septic and remedy parameters, no storm.
        const septic = await paramWords(page, 'oak-lane');
        expect(septic.ids).toContain('site-edit-septicPumping-fraction');
        expect(septic.labels).toContain('Days to remedy an equipment fault (days)');
        expect(septic.text).not.toMatch(/storm|sediment|turbidity/i);
        for (const l of septic.labels) expect(l).not.toMatch(/[a-z][A-Z]/);
        await screenshot(page, `one-clock-septic-params-${name}`);

        expect(problems).toEqual([]);
      } finally {
        await ctx.close();
      }
    }, 90_000);
});
