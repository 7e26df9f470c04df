/**
 * A site's edit form shows its rule parameters as they stand even when its newest record of the site
 * itself is pages back (real Chromium, real gateway): the storm threshold set to 0.75 in, then more than a
 * page (500) of change records of one of its devices; the form still shows 0.75, read from the page that
 * holds the site's record.
 */
import { createHash } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, watchCsp } from '../helpers/browser.ts';
import { haveBinary } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const TOKEN = 'site-params-admin-token';
const ADMIN = { name: 'Ada Admin', email: 'ada@town.example', password: 'correct horse battery' };
const DEVICE_EDITS = 520;

describe.skipIf(!haveBinary('chromium'))('dashboard: a site edited after many device changes', () => {
  let gw: TestGateway;
  let browser: Browser;
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${gw.httpUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${TOKEN}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res;
  };

  beforeAll(async () => {
    gw = await startTestGateway({
      auth: {
        tokens: [
          { name: 'Setup', role: 'admin', tokenSha256: createHash('sha256').update(TOKEN).digest('hex') },
        ],
      },
    });
    await api('POST', '/api/users', { ...ADMIN, role: 'admin' });
    await api('PATCH', '/api/sites/maple-ridge', {
      storm: { thresholdIn: 0.75 },
      lawOverrides: { 'storm-threshold': 'A threshold above the law, with its reason.' },
    });
    for (let i = 0; i < DEVICE_EDITS; i++)
      await api('PATCH', '/api/sites/maple-ridge/devices/trap-1', { designDepthIn: 24 + (i % 2) });
    // The site's own record is not on the first page of its changes.
    const first = await api('GET', '/api/changes?siteId=maple-ridge&limit=500');
    const items = (await first.json()) as Array<{ entity: string }>;
    expect(items.some((c) => c.entity === 'site')).toBe(false);
    expect(first.headers.get('link')).toMatch(/rel="next"/);
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await gw?.cleanup();
  });

  it('shows the storm threshold on record in the edit form', async () => {
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
    expect(await page.inputValue('#site-edit-storm-thresholdIn')).toBe('0.75');
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);
});
