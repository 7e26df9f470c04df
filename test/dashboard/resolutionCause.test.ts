/**
 * The alert dialog says what closed an alert, in Chromium against a real gateway, at a desk (1366x900)
 * and on a phone (390x844): a storm duty closed by an inspection reads "Resolved … by the storm inspection
 * by Ian Inspector on …" in the site's zone, with a link to the record, in its details and in its
 * history; never "from the readings". No console error, no raw key.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatLong } from '../../shared/src/time.ts';
import { type AlertJson, launchChromium, screenshot } from '../helpers/browser.ts';
import { haveBinary } from '../helpers/env.ts';
import { completeInspection } from '../helpers/inspections.ts';
import { type Scenario, signIn, startScenario } from './alertsScenario.ts';

const NY = 'America/New_York';
const RAW = /inspectionId|inspectionKind|\bkind\b|\bnull\b|undefined|\{"/;
const suffix = process.env.SCREENSHOT_SUFFIX ?? '';

describe.skipIf(!haveBinary('chromium'))('what closed an alert, in its dialog', () => {
  let s: Scenario;
  let browser: Browser;
  let inspectedAt: string;
  let closed: AlertJson;
  let silent: AlertJson;
  const problems: string[] = [];

  beforeAll(async () => {
    s = await startScenario();
    inspectedAt = new Date(Date.now() - 10 * 60_000).toISOString();
    const recorded = await s.api<{ inspection: { id: string }; closedAlertIds: string[] }>(
      '/api/inspections',
      {
        method: 'POST',
        body: completeInspection({
          siteId: 'maple-ridge',
          at: inspectedAt,
          inspector: 'Ian Inspector',
          kind: 'storm',
          notes: 'Silt fence holding.',
        }),
      },
    );
    // The routine period it met (the storms still rain, or were due long before).
    const all = await s.alerts('siteId=maple-ridge');
    closed = all.find((a) => recorded.closedAlertIds.includes(a.id))!;
    silent = all.find((a) => a.rule === 'device-silent' && a.status === 'resolved')!;
    expect(closed).toBeDefined();
    browser = await launchChromium();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  const open = async (page: Page, a: AlertJson = closed) => {
    await page.goto(`${s.gw.httpUrl}/#/alerts/${encodeURIComponent(a.id)}`);
    await page.waitForSelector('#alert-dialog[open] #alert-body li[data-action="resolved"]');
  };

  for (const [name, viewport] of [
    ['desktop', { width: 1366, height: 900 }],
    ['phone', { width: 390, height: 844 }],
  ] as const)
    it(`names the inspection, its inspector, kind and time, on the ${name}`, async () => {
      const page = await browser.newPage({ viewport, timezoneId: 'America/Chicago' });
      await signIn(page, s.gw.httpUrl, problems);
      await open(page);
      const when = formatLong(Date.parse(inspectedAt), NY);
      const resolved = (await page.locator('#alert-body dt:text-is("Resolved") + dd').textContent()) ?? '';
      expect(resolved).toContain(`by the storm inspection by Ian Inspector on ${when}`);
      expect(resolved).not.toContain('from the readings');
      const link = page.locator('#alert-body a.cause-link');
      const inspectionId = (await link.getAttribute('data-inspection')) ?? '';
      expect(inspectionId).toMatch(/^insp-/);
      expect(await link.getAttribute('href')).toBe(`#/inspections/${inspectionId}`);
      const history =
        (await page.locator('#alert-body li[data-action="resolved"] .history-text').textContent()) ?? '';
      expect(history).toMatch(
        new RegExp(
          `^Resolved by the storm inspection by Ian Inspector on ${when.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`,
        ),
      );
      const text = (await page.locator('#alert-dialog').textContent()) ?? '';
      expect(RAW.exec(text)?.[0]).toBeUndefined();
      expect(text).not.toMatch(/C[SD]T/);
      await screenshot(page, `alert-resolution-${name}${suffix}`, false);
      expect(problems).toEqual([]);
      if (name === 'desktop') {
        // A device heard from again: the readings, which device and which reading.
        await page.keyboard.press('Escape');
        await open(page, silent);
        const again = (await page.locator('#alert-body dt:text-is("Resolved") + dd').textContent()) ?? '';
        expect(again).toMatch(
          new RegExp(
            `from the readings: device ${silent.deviceId}'s reading of \\w{3} \\d+, \\d{4}, .+ E[SD]T`,
          ),
        );
        expect(problems).toEqual([]);
      }
      await page.close();
    });
});
