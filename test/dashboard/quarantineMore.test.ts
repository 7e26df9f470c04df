import mqtt from 'mqtt';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshot } from '../helpers/browser.ts';
import { haveBinary, waitFor } from '../helpers/env.ts';
import { T } from '../helpers/faults.ts';
import { startTestGateway, type TestGateway, testHash } from '../helpers/gateway.ts';
import { OFFICER, signIn } from './alertsScenario.ts';

const READINGS = 230;
const DAY = 86_400_000;
const SITE = 'Maple Ridge subdivision';
const GAUGE = 'North rain gauge';

describe.skipIf(!haveBinary('chromium'))('the quarantine page, a page at a time', () => {
  let gw: TestGateway;
  let browser: Browser;
  /** The ids of the kept readings, newest first, as the gateway lists them. */
  let ids: number[];

  beforeAll(async () => {
    gw = await startTestGateway({
      sites: [
        {
          id: 'maple-ridge',
          name: SITE,
          kind: 'construction',
          devices: [
            {
              id: 'rg-1',
              name: GAUGE,
              kind: 'rain-gauge',
              inchesPerTip: 0.01,
              passwordHash: testHash('pw-rg-1'),
            },
          ],
        },
      ],
      mqtt: { allowAnonymous: true },
      auth: {
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
    const rg = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
    });
    for (let i = 1; i <= READINGS; i++)
      await rg.publishAsync(
        T('rg-1'),
        JSON.stringify({ ts: now + 30 * DAY + i * 60_000, seq: i, rainTips: 1 }),
        { qos: 1 },
      );
    await rg.endAsync();
    const ghost = await mqtt.connectAsync(gw.mqttUrl, { clientId: 'new-gauge' });
    await ghost.publishAsync(T('rg-9'), JSON.stringify({ rainTips: 1 }), { qos: 1 });
    await ghost.endAsync();
    // Every page of the list, as the API answers it.
    ids = [];
    let url: string | undefined = `${gw.httpUrl}/api/quarantine?status=all&limit=50`;
    while (url) {
      const r: Response = await fetch(url);
      ids.push(...((await r.json()) as { items: Array<{ id: number }> }).items.map((i) => i.id));
      const next = /<([^>]+)>;\s*rel="next"/.exec(r.headers.get('link') ?? '')?.[1];
      url = next ? `${gw.httpUrl}${next}` : undefined;
    }
    expect(ids).toHaveLength(READINGS + 1);
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
    it(`shows the newest readings by name, says older ones follow, and "Show more readings" adds them (${name})`, async () => {
      const problems: string[] = [];
      const page = await browser.newPage({ viewport });
      await signIn(page, gw.httpUrl, problems);
      await page.goto(`${gw.httpUrl}/#/quarantine`);
      const rows = page.locator('#quarantine-items tr[data-item]');
      await rows.first().waitFor({ timeout: 20_000 });
      expect(await rows.count()).toBe(100);
      const status = page.locator('#quarantine-items-status');
      expect(await status.textContent()).toBe(
        'The newest 100 readings, newest first. Older readings are not shown yet: “Show more readings” below.',
      );
      // The newest shown, the oldest not yet.
      const shown = () => rows.evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-item'))));
      expect(await shown()).toEqual(ids.slice(0, 100));
      // Names where there are names: the site's, and the gauge's with its id; no "site/device" ids.
      const first = rows.first();
      expect(await first.locator('td[data-label="Site"]').textContent()).toBe(SITE);
      const gaugeRow = rows.filter({ hasText: 'clock' }).first();
      expect(await gaugeRow.locator('td[data-label="Device"]').textContent()).toBe(`${GAUGE} (rg-1)`);
      // biome-ignore lint/performance/useDomNodeTextContent: the words on screen are the point
      const words = await page.locator('#quarantine-list').innerText();
      expect(words).not.toMatch(/maple-ridge/);
      expect(words).toContain(`${GAUGE} (rg-1) at ${SITE}: clock up to 30 d`);

      const more = page.getByRole('button', { name: 'Show more readings' });
      expect(await more.isVisible()).toBe(true);
      await screenshot(page, `quarantine-more-${name}-first-page`);
      await status.scrollIntoViewIfNeeded();
      await screenshot(page, `quarantine-more-${name}-sentence`, false);
      await more.scrollIntoViewIfNeeded();
      await screenshot(page, `quarantine-more-${name}-button`, false);
      // A page at a time: 100, 200, then the rest.
      for (const n of [200, ids.length]) {
        await more.click();
        await waitFor(async () => (await rows.count()) === n, 10_000, `${n} readings in the table`);
        expect(await shown()).toEqual(ids.slice(0, n));
      }
      expect(await status.textContent()).toBe(`${ids.length} readings, newest first`);
      expect(await more.isVisible()).toBe(false);
      // Every reading once, newest first: the oldest (the gauge's first) last.
      expect(await shown()).toEqual(ids);
      await screenshot(page, `quarantine-more-${name}-all`);
      expect(problems).toEqual([]);
      await page.close();
    }, 60_000);
});
