/**
 * The site editor and the figures of the law (real Chromium, real gateway): a storm threshold set above
 * the law's 0.5 in brings up a reason field that says why in words; saving without a reason is refused in
 * the form and nothing is stored; with a reason the figure is saved and the override recorded. A figure
 * set back within the law hides the field again.
 */
import { createHash } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshot, watchCsp } from '../helpers/browser.ts';
import { haveBinary } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const TOKEN = 'law-figures-admin-token';
const ADMIN = { name: 'Ada Admin', email: 'ada@town.example', password: 'correct horse battery' };
const REASON = 'The gauge is under a canopy; agreed with the town engineer on November 2.';
const REASON_FIELD = '#site-edit-lawOverrides-storm-threshold';

describe.skipIf(!haveBinary('chromium'))('dashboard: a figure looser than the law', () => {
  let gw: TestGateway;
  let browser: Browser;
  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${gw.httpUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${TOKEN}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const overrides = async () =>
    (
      await api<Array<{ entity: string; action: string; by: string; new: Record<string, unknown> }>>(
        'GET',
        '/api/changes?siteId=maple-ridge',
      )
    ).filter((c) => c.entity === 'override');

  beforeAll(async () => {
    gw = await startTestGateway({
      auth: {
        tokens: [
          { name: 'Setup', role: 'admin', tokenSha256: createHash('sha256').update(TOKEN).digest('hex') },
        ],
      },
    });
    await api('POST', '/api/users', { ...ADMIN, role: 'admin' });
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await gw?.cleanup();
  });

  it('asks for a reason, says why, refuses without one and records it with one', async () => {
    const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    watchCsp(page, problems);
    await page.goto(`${gw.httpUrl}/#/signin`);
    await page.fill('#signin-email', ADMIN.email);
    await page.fill('#signin-password', ADMIN.password);
    await page.click('#signin-form button[type="submit"]');
    await page.waitForSelector('#who-name:has-text("Ada Admin")');
    await page.click('nav.tabs a:has-text("Sites and devices")');
    await page.click('[data-manage-site="maple-ridge"] button:has-text("Edit")');
    await page.waitForSelector('#site-edit');
    await page.click('#site-edit details.group summary');

    // Within the law: no reason asked for.
    await page.fill('#site-edit-storm-thresholdIn', '0.5');
    expect(await page.isVisible(REASON_FIELD)).toBe(false);
    // Above it: the reason field, and why, in words.
    await page.fill('#site-edit-storm-thresholdIn', '0.75');
    await page.waitForSelector(REASON_FIELD, { state: 'visible' });
    const hint = await page.textContent(`${REASON_FIELD}-hint`);
    expect(hint).toContain('More than 0.5 in is looser than the law');
    expect(hint).toContain('0.5 inch of precipitation or more');
    expect(hint).toContain('printed on the site');
    expect(hint).not.toMatch(/lawOverrides|thresholdIn|storm-threshold/);

    // Saved without a reason: refused under the reason field, nothing stored.
    await page.click('#site-edit button[type="submit"]');
    await page.waitForSelector(`${REASON_FIELD}-err:not([hidden])`);
    expect(await page.textContent(`${REASON_FIELD}-err`)).toBe(
      "Say why: 0.75 in is looser than the law's 0.5 in.",
    );
    await screenshot(page, 'site-edit-looser-than-the-law', false);
    expect(await overrides()).toEqual([]);

    // With a reason: saved, and the override recorded with it.
    await page.fill(REASON_FIELD, REASON);
    await page.click('#site-edit button[type="submit"]');
    await page.waitForSelector('#edit-dialog', { state: 'hidden' });
    const recorded = await overrides();
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({
      action: 'set',
      by: expect.stringContaining('Ada Admin'),
      new: { value: 0.75, law: 0.5, reason: REASON },
    });

    // Opened again, the figure on record shows its reason; set back within the law, the field goes.
    await page.click('[data-manage-site="maple-ridge"] button:has-text("Edit")');
    await page.waitForSelector('#site-edit');
    await page.click('#site-edit details.group summary');
    expect(await page.inputValue(REASON_FIELD)).toBe(REASON);
    await page.fill('#site-edit-storm-thresholdIn', '0.4');
    expect(await page.isVisible(REASON_FIELD)).toBe(false);
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);
});
