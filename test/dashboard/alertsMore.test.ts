import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshot } from '../helpers/browser.ts';
import { haveBinary } from '../helpers/env.ts';
import { startTestGateway, type TestGateway, testHash } from '../helpers/gateway.ts';
import { completeInspection } from '../helpers/inspections.ts';
import { sha } from '../helpers/people.ts';
import { OFFICER, signIn } from './alertsScenario.ts';

const INSPECTIONS = 130;
describe.skipIf(!haveBinary('chromium'))('the alerts page, a page at a time', () => {
  let gw: TestGateway;
  let browser: Browser;
  let total: number;

  beforeAll(async () => {
    gw = await startTestGateway({
      sites: [{ id: 'maple-ridge', name: 'Maple Ridge subdivision', kind: 'construction', devices: [] }],
      auth: {
        tokens: [{ name: 'Ian Inspector', role: 'inspector', tokenSha256: sha('tok-insp') }],
        users: [
          {
            name: OFFICER.name,
            email: OFFICER.email,
            role: 'admin',
            passwordHash: testHash(OFFICER.password),
          },
        ],
      },
    });
    const now = Date.now();
    for (let i = 0; i < INSPECTIONS; i++) {
      const r = await fetch(`${gw.httpUrl}/api/inspections`, {
        method: 'POST',
        headers: { authorization: 'Bearer tok-insp', 'content-type': 'application/json' },
        body: JSON.stringify(
          completeInspection({
            siteId: 'maple-ridge',
            at: new Date(now - (INSPECTIONS - i) * 3_600_000).toISOString(),
            inspector: 'Ian Inspector',
            kind: 'routine',
          }),
        ),
      });
      expect(r.status).toBe(201);
    }
    let url: string | undefined = `${gw.httpUrl}/api/alerts?limit=500`;
    total = 0;
    while (url) {
      const r: Response = await fetch(url);
      total += ((await r.json()) as unknown[]).length;
      const next = /<([^>]+)>;\s*rel="next"/.exec(r.headers.get('link') ?? '')?.[1];
      url = next ? `${gw.httpUrl}${next}` : undefined;
    }
    expect(total).toBeGreaterThan(100);
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await gw?.cleanup();
  });

  for (const [name, viewport] of [
    ['desk', { width: 1366, height: 900 }],
    ['phone', { width: 390, height: 844 }],
  ] as const)
    it(`shows the newest page, says older ones follow, and "Show more alerts" adds them (${name})`, async () => {
      const problems: string[] = [];
      const page = await browser.newPage({ viewport });
      await signIn(page, gw.httpUrl, problems);
      await page.goto(`${gw.httpUrl}/#/alerts`);
      await page.waitForSelector('#alerts-body tr[data-alert]');
      expect(await page.locator('#alerts-body tr[data-alert]').count()).toBe(100);
      const status = page.locator('#alerts-status');
      expect(await status.textContent()).toBe(
        'The newest 100 alerts, most urgent first. Older alerts are not shown yet: “Show more alerts” below.',
      );
      const more = page.getByRole('button', { name: 'Show more alerts' });
      expect(await more.isVisible()).toBe(true);
      await screenshot(page, `alerts-more-${name}-first-page`);
      await more.scrollIntoViewIfNeeded();
      await screenshot(page, `alerts-more-${name}-button`, false);
      await more.click();
      await page.waitForFunction(
        (n) => document.querySelectorAll('#alerts-body tr[data-alert]').length === n,
        total,
        { timeout: 10_000 },
      );
      expect(await status.textContent()).toBe(`${total} alerts, most urgent first`);
      expect(await more.isVisible()).toBe(false);
      // Every alert once.
      const ids = await page
        .locator('#alerts-body tr[data-alert]')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-alert')));
      expect(new Set(ids).size).toBe(total);
      await screenshot(page, `alerts-more-${name}-all`);
      expect(problems).toEqual([]);
      await page.close();
    }, 60_000);
});
