/**
 * The practices editor on a construction site's page (real gateway, real Chromium at 1366x900 and
 * 390x844): an administrator adds two practices (their ids made from their labels), renames one and
 * changes its kind, and retires one, each saved at once and said in words; the gateway holds exactly that,
 * the Changes page tells each change in words, and the inspection form's checklist shows exactly the
 * practices in force. A viewer sees the list without the controls. No console error, no blocked resource
 * (screenshots practices-editor-desktop, practices-editor-phone).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asViewer, launchChromium, screenshot, watchPage } from '../helpers/browser.ts';
import { haveBinary } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { PASSWORD, peopleApi, sha } from '../helpers/people.ts';

const ADMIN_TOKEN = 'practices-admin-token';
const TZ = 'America/New_York';
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1366, height: 900 };
const FENCE = { id: 'silt-n', label: 'Silt fence, north boundary', kind: 'silt-fence' as const };

interface P {
  id: string;
  label: string;
  kind: string;
  retired?: string;
}

const site = (id: string, name: string) => ({
  id,
  name,
  kind: 'construction' as const,
  timezone: TZ,
  practices: [FENCE],
  devices: [],
});

describe.skipIf(!haveBinary('chromium'))('the practices editor on a construction site page', () => {
  let gw: TestGateway;
  let browser: Browser;
  const practices = async (siteId: string) =>
    (
      (await (
        await fetch(`${gw.httpUrl}/api/sites/${siteId}`, {
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        })
      ).json()) as { practices?: P[] }
    ).practices ?? [];

  beforeAll(async () => {
    gw = await startTestGateway({
      sites: [site('maple-ridge', 'Maple Ridge'), site('fox-run', 'Fox Run')],
      auth: { tokens: [{ name: 'Ada Admin', role: 'admin', tokenSha256: sha(ADMIN_TOKEN) }] },
    });
    await peopleApi(gw.httpUrl, ADMIN_TOKEN).account('Pat Admin', 'pat@town.example', 'admin');
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await gw?.cleanup();
  });

  async function signedIn(size: { width: number; height: number }, siteId: string) {
    const page = await browser.newPage({ viewport: size, timezoneId: 'America/Chicago' });
    const watched = watchPage(page);
    await page.goto(`${gw.httpUrl}/#/signin`);
    await page.fill('#signin-email', 'pat@town.example');
    await page.fill('#signin-password', PASSWORD);
    await page.click('#signin-form button[type="submit"]');
    await page.waitForFunction(() => location.hash === '#/overview');
    await page.evaluate((id) => {
      location.hash = `#/site/${id}`;
    }, siteId);
    await page.locator('#site-practices .practices #practice-add').waitFor();
    return { page, ...watched };
  }

  const saved = (page: Page, words: string) =>
    page.locator('#practices-result', { hasText: words }).waitFor({ timeout: 10_000 });

  async function add(page: Page, label: string, kind: string) {
    await page.fill('#pr-new-label', label);
    await page.selectOption('#pr-new-kind', kind);
    await page.click('#practice-add button[type="submit"]');
    await saved(page, `Saved: "${label}" added.`);
  }

  /** Adds two practices, renames the fence and makes it another kind, retires the second one added. */
  async function editAll(page: Page) {
    await add(page, 'Sediment trap no. 1', 'sediment-trap');
    await add(page, 'Temporary seeding of the stockpile', 'stabilization');
    const fence = page.locator('tr[data-practice="silt-n"]');
    await fence.locator('[data-act="edit"]').click();
    await fence.locator('input').fill('Silt fence, north and east boundaries');
    await fence.locator('select').selectOption('other');
    await fence.locator('[data-act="save"]').click();
    await saved(
      page,
      'Saved: "Silt fence, north boundary" renamed "Silt fence, north and east boundaries", now other practice.',
    );
    const seeding = page.locator('tr[data-practice="temporary-seeding-of-the-stockpile"]');
    await seeding.locator('[data-act="retire"]').click();
    await seeding.locator('[data-act="retire-yes"]').click();
    await saved(page, 'Saved: "Temporary seeding of the stockpile" is retired.');
  }

  async function plainWords(page: Page) {
    // biome-ignore lint/performance/useDomNodeTextContent: the words shown, not those of hidden views
    const text = await page.locator('#site-practices').innerText();
    expect(text).not.toMatch(/\b[A-Z]{2,}_[A-Z_]+\b|undefined|null|NaN|\[object|silt-n|sediment-trap-no/);
    return text;
  }

  it('an administrator adds two, renames one, retires one (1366x900); the form lists those in force', async () => {
    const { page, errors, csp } = await signedIn(DESKTOP, 'maple-ridge');
    await editAll(page);
    const list = await practices('maple-ridge');
    expect(list.map(({ retired, ...p }) => ({ ...p, retired: retired !== undefined }))).toEqual([
      { id: 'silt-n', label: 'Silt fence, north and east boundaries', kind: 'other', retired: false },
      { id: 'sediment-trap-no-1', label: 'Sediment trap no. 1', kind: 'sediment-trap', retired: false },
      {
        id: 'temporary-seeding-of-the-stockpile',
        label: 'Temporary seeding of the stockpile',
        kind: 'stabilization',
        retired: true,
      },
    ]);
    const text = await plainWords(page);
    expect(text).toContain('2 in force.');
    expect(text).toMatch(
      /Temporary seeding of the stockpile\s+Soil stabilization\s+Retired from \w{3} \d+, \d{4}, \d+:\d\d [AP]M E[SD]T/,
    );
    expect(
      await page
        .locator('tr[data-practice="temporary-seeding-of-the-stockpile"] [data-act="retire"]')
        .count(),
    ).toBe(0);
    await page.locator('#practices-h').scrollIntoViewIfNeeded();
    await screenshot(page, 'practices-editor-desktop');

    // The change history tells each change in words.
    await page.evaluate(() => {
      location.hash = '#/changes';
    });
    const changes = page.locator('#changes-list');
    await changes.getByText("practice 'Temporary seeding of the stockpile' retired from").waitFor();
    // biome-ignore lint/performance/useDomNodeTextContent: the words shown
    const told = await changes.innerText();
    expect(told).toContain(
      "Site 'Maple Ridge' practice 'Sediment trap no. 1' added (sediment trap) by Pat Admin",
    );
    expect(told).toContain(
      "practice 'Silt fence, north boundary' renamed 'Silt fence, north and east boundaries'",
    );
    expect(told).toContain(
      "practice 'Silt fence, north and east boundaries' changed from silt fence to other practice",
    );

    // The inspection form's checklist: exactly the practices in force.
    await page.evaluate(() => {
      location.hash = '#/inspect/maple-ridge';
    });
    await page.locator('#i-checklist fieldset.practice').first().waitFor();
    expect(
      await page
        .locator('#i-checklist fieldset.practice')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-practice'))),
    ).toEqual(['silt-n', 'sediment-trap-no-1']);
    expect(await page.locator('#i-checklist legend').allInnerTexts()).toEqual([
      'Practices',
      'Silt fence, north and east boundaries · Other practice',
      'Sediment trap no. 1',
    ]);
    expect(errors).toEqual([]);
    expect(csp).toEqual([]);
    await page.close();
  });

  it('the same on a phone (390x844)', async () => {
    const { page, errors, csp } = await signedIn(PHONE, 'fox-run');
    await editAll(page);
    expect((await practices('fox-run')).filter((p) => p.retired === undefined).map((p) => p.label)).toEqual([
      'Silt fence, north and east boundaries',
      'Sediment trap no. 1',
    ]);
    await plainWords(page);
    await page.locator('#practices-h').scrollIntoViewIfNeeded();
    await screenshot(page, 'practices-editor-phone');
    expect(errors).toEqual([]);
    expect(csp).toEqual([]);
    await page.close();
  });

  it('a viewer sees the list, without the controls', async () => {
    const page = await asViewer(await browser.newPage({ viewport: DESKTOP }));
    const { errors, csp } = watchPage(page);
    await page.goto(`${gw.httpUrl}/#/site/maple-ridge`);
    await page.locator('#practices-table').waitFor();
    expect(await page.locator('#practices-table tbody tr').count()).toBe(3);
    expect(await page.locator('#site-practices button, #practice-add').count()).toBe(0);
    expect(errors).toEqual([]);
    expect(csp).toEqual([]);
    await page.close();
  });
});
