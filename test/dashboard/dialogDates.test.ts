/**
 * One date format per dialog: every alert's dialog (its message and evidence as the gateway wrote them,
 * its deadline, history and resolution) and the edit-site dialog show each date and time as
 * `formatTime` writes it ("Dec 7, 2026, 4:36 PM EST"; a day alone as its date), never the gateway's own label ("2026-12-07 16:36
 * EST"), ISO 8601 or a day without its year beside it. Screenshots dialog-dates-desktop, -phone.
 */
import mqtt from 'mqtt';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshot, watchPage } from '../helpers/browser.ts';
import { haveBinary, waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway, testConfigInput } from '../helpers/gateway.ts';
import { sha } from '../helpers/people.ts';

const ADMIN_TOKEN = 'dialog-dates-admin-token';
const MONTH3 = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const MONTH = `${MONTH3}[a-z]*\\.?`;
/** Anything shaped like a date: ISO days, slashed days, a month's name with a day, a day with a month's name. */
const DATE_SHAPES = [
  /\b\d{4}-\d{2}-\d{2}\b/g,
  /\b\d{1,2}\/\d{1,2}\/\d{2,4}\b/g,
  new RegExp(
    `\\b${MONTH} \\d{1,2}\\b(?:, \\d{4})?(?:,? \\d{1,2}:\\d{2}(?: [AP]M)?(?: [A-Z][A-Za-z0-9+:-]*)?)?`,
    'g',
  ),
  new RegExp(`\\b\\d{1,2} ${MONTH}\\b`, 'g'),
];
/** The one format: formatTime's "Dec 7, 2026, 4:36 PM EST" (a day alone: its date, "Dec 7, 2026"). */
const ONE = new RegExp(`^${MONTH3} \\d{1,2}, \\d{4}(?:, \\d{1,2}:\\d{2} [AP]M [A-Z][A-Za-z0-9+:-]*)?$`);
/** A time in the one format, hours and zone included. */
const ONE_TIME = new RegExp(`${MONTH3} \\d{1,2}, \\d{4}, \\d{1,2}:\\d{2} [AP]M [A-Z]`);

/** Each date in `text` that is not in the one format. */
function otherFormats(text: string): string[] {
  const found = DATE_SHAPES.flatMap((re) => [...text.matchAll(re)].map((m) => m[0]));
  return found.filter((d) => !ONE.test(d));
}

async function dialogText(page: Page, selector: string): Promise<string> {
  // biome-ignore lint/performance/useDomNodeTextContent: the words shown, folded details included by opening them
  return page.locator(selector).innerText();
}

describe.skipIf(!haveBinary('chromium'))('one date format per dialog', () => {
  let gw: TestGateway;
  let browser: Browser;
  let alerts: Array<{ id: string; message: string; evidenceText?: Array<{ text: string }> }>;

  beforeAll(async () => {
    const sites = testConfigInput().sites!.map((s) =>
      s.id === 'oak-lane'
        ? {
            ...s,
            name: 'Oak Lane',
            kind: 'septic' as const,
            history: { lastPumpOut: '2022-06-01T16:00:00Z' },
          }
        : { ...s, name: 'Maple Ridge', history: { lastRoutineInspection: '2026-01-05T15:00:00Z' } },
    );
    gw = await startTestGateway({
      sites,
      auth: { tokens: [{ name: 'Ada Admin', role: 'admin', tokenSha256: sha(ADMIN_TOKEN) }] },
    });
    // A 0.6 in storm an hour ago: a storm and its inspection duty, its due time moved by every tip.
    const t0 = Date.now() - 3_600_000;
    const c = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
    });
    for (let i = 0; i <= 60; i++)
      await c.publishAsync(
        'sites/maple-ridge/devices/rg-1/telemetry',
        JSON.stringify({ ts: t0 + i * 60_000, seq: i, rainTips: i }),
        { qos: 1 },
      );
    await c.endAsync();
    alerts = await waitFor(
      async () => {
        const list = (await (await fetch(`${gw.httpUrl}/api/alerts?status=open`)).json()) as typeof alerts;
        return list.some((a) => a.message.includes('in of rain') || /storm/i.test(a.message))
          ? list
          : undefined;
      },
      10_000,
      'the storm alert',
    );
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await gw?.cleanup();
  });

  it("the gateway's sentences carry its own label of a time, which the dialogs rewrite", () => {
    const written = alerts
      .flatMap((a) => [a.message, ...(a.evidenceText ?? []).map((l) => l.text)])
      .join('\n');
    expect(written).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2} [A-Z]/);
  });

  it.each([
    ['desktop', 1366, 900],
    ['phone', 390, 844],
  ])('every alert dialog and the edit-site dialog show one format (%s)', async (name, width, height) => {
    const page = await browser.newPage({ viewport: { width, height }, timezoneId: 'America/Los_Angeles' });
    const { errors, csp } = watchPage(page);
    await page.addInitScript((token) => sessionStorage.setItem('gateway.token', token), ADMIN_TOKEN);
    await page.goto(`${gw.httpUrl}/#/overview`);
    await page.locator('#overview-body .duty').first().waitFor();
    let shot = false;
    for (const a of alerts) {
      await page.evaluate((id) => {
        location.hash = `#/alerts/${id}`;
      }, a.id);
      const dialog = page.locator('#alert-dialog');
      await dialog.locator('#alert-body .kv').first().waitFor();
      // Wait for the gateway's copy (with its evidence in words), then unfold what is folded.
      await page.waitForLoadState('networkidle');
      for (const b of await dialog.locator('.history-toggle').all()) await b.click();
      await dialog.evaluate((el) => {
        for (const d of el.querySelectorAll('details')) d.open = true;
      });
      const text = await dialogText(page, '#alert-dialog');
      expect(text).toMatch(ONE_TIME);
      expect(otherFormats(text), `${a.id}: ${text}`).toEqual([]);
      if (!shot && /storm/i.test(a.message)) {
        await screenshot(page, `dialog-dates-${name}`, false);
        shot = true;
      }
      await page.click('#alert-close');
    }
    expect(shot).toBe(true);

    // The edit-site dialog: the history on record beside its fields.
    await page.evaluate(() => {
      location.hash = '#/manage';
    });
    await page.locator('#manage-list button', { hasText: 'Edit' }).first().click();
    const edit = page.locator('#edit-dialog');
    await edit.locator('form').waitFor();
    // The history on record is folded away under its heading: unfolded, as the person would.
    await expect
      .poll(() =>
        edit.evaluate((el) => {
          for (const d of el.querySelectorAll('details')) d.open = true;
          return el.querySelectorAll('details').length;
        }),
      )
      .toBeGreaterThan(0);
    await expect.poll(async () => dialogText(page, '#edit-dialog')).toContain('On record:');
    const text = await dialogText(page, '#edit-dialog');
    expect(otherFormats(text), text).toEqual([]);
    expect(errors).toEqual([]);
    expect(csp).toEqual([]);
    await page.close();
  });
});
