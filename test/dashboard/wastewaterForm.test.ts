/**
 * The inspection form for a wastewater system (real Chromium at phone size, real gateway): the engineer's
 * annual inspection of an alternative system lists its deficiencies (equipment or absorption field, with a
 * note), which open their remedies; a pump-out of a septic tank names the hauler and the NYS DEC permit,
 * and a half-filled hauler is refused on the phone in words; the parts show only where they apply.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshot, watchCsp } from '../helpers/browser.ts';
import { haveBinary, waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { PASSWORD, peopleApi, sha } from '../helpers/people.ts';

const ADMIN_TOKEN = 'wastewater-form-admin-token';
const ENGINEER = { name: 'Rita Engineer', email: 'rita@town.example' };
const ZONE = 'America/New_York';

interface InspectionJson {
  id: string;
  inspector: string;
  kind: string;
  deficiencies?: Array<{ id: string; kind: string; note: string }>;
  remedied?: string[];
  hauler?: { name: string; permit: string };
}
interface AlertJson {
  rule: string;
  status: string;
  message: string;
}

describe.skipIf(!haveBinary('chromium'))('dashboard: the inspection form of a wastewater system', () => {
  let gw: TestGateway;
  let browser: Browser;
  let ctx: BrowserContext;
  const errors: string[] = [];
  const csp: string[] = [];
  const api = () => peopleApi(gw.httpUrl, ADMIN_TOKEN);
  const get = async <T>(path: string) => {
    const r = await api().call('GET', path, undefined, api().admin);
    expect(r.status).toBe(200);
    return r.body as unknown as T;
  };

  async function openPage(hash: string): Promise<Page> {
    const page = await ctx.newPage();
    watchCsp(page, csp);
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${gw.httpUrl}/${hash}`);
    return page;
  }

  beforeAll(async () => {
    gw = await startTestGateway({
      auth: { tokens: [{ name: 'Ada Admin', role: 'admin', tokenSha256: sha(ADMIN_TOKEN) }] },
      sites: [
        { id: 'oak-lane', name: 'Oak Lane', kind: 'alternative-system', timezone: ZONE, devices: [] },
        { id: 'pine-hill', name: 'Pine Hill', kind: 'septic', timezone: ZONE, devices: [] },
      ],
    });
    await api().account(ENGINEER.name, ENGINEER.email, 'engineer');
    browser = await launchChromium();
    ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, timezoneId: ZONE });
    const page = await openPage('#/signin');
    await page.fill('#signin-email', ENGINEER.email);
    await page.fill('#signin-password', PASSWORD);
    await page.click('#signin-form button[type="submit"]');
    await page.waitForSelector('#who-name:has-text("Rita Engineer")');
    await page.close();
  });
  afterAll(async () => {
    await ctx?.close();
    await browser?.close();
    await gw?.cleanup();
  });

  it("records an annual inspection's deficiencies, which open the 5- and 30-day remedies", async () => {
    const page = await openPage('#/inspect/oak-lane/annual');
    const part = page.locator('#i-wastewater');
    await part.locator('legend:has-text("Deficiencies to remedy")').waitFor();
    expect(await part.textContent()).toContain('5 days (equipment) or 30 days (absorption field)');
    await page.click('#d-add');
    await page.click('#d-add');
    await page.fill('#d-0-note', 'Aerator not running');
    await page.selectOption('#d-1-kind', 'field');
    await page.fill('#d-1-note', 'Ponding over the north trench');
    await screenshot(page, 'inspection-deficiencies-phone');
    await page.click('#inspect-form button[type="submit"]');
    await page.locator('#inspect-result:has-text("Recorded inspection")').waitFor();
    const [rec] = (await get<InspectionJson[]>('/api/inspections?siteId=oak-lane')).filter(
      (i) => i.inspector === ENGINEER.name,
    );
    expect(rec?.deficiencies?.map((d) => [d.kind, d.note])).toEqual([
      ['equipment', 'Aerator not running'],
      ['field', 'Ponding over the north trench'],
    ]);
    const alerts = await waitFor(
      async () => {
        const all = await get<AlertJson[]>('/api/alerts?siteId=oak-lane');
        const mine = all.filter((a) => a.message.includes('deficiency'));
        return mine.length === 2 ? mine : undefined;
      },
      10_000,
      'two remedies',
    );
    expect(alerts.map((a) => a.status)).toEqual(['open', 'open']);
    // The form is empty again.
    expect(await page.locator('#d-0-note').count()).toBe(0);
    await page.close();
  });

  it('a later visit ticks a deficiency found remedied, which meets its remedy', async () => {
    const page = await openPage('#/inspect/oak-lane/other');
    const box = page.locator('#i-remedied label:has-text("Aerator not running") input');
    await box.waitFor();
    expect(await page.locator('#i-remedied label').allTextContents()).toEqual([
      ' Aerator not running',
      ' Ponding over the north trench',
    ]);
    await box.check();
    await page.click('#inspect-form button[type="submit"]');
    await page.locator('#inspect-result:has-text("Recorded inspection")').waitFor();
    const [later] = (await get<InspectionJson[]>('/api/inspections?siteId=oak-lane')).filter(
      (i) => i.inspector === ENGINEER.name && i.kind === 'other',
    );
    expect(later?.remedied).toHaveLength(1);
    const all = await get<AlertJson[]>('/api/alerts?siteId=oak-lane');
    const aerator = all.find((a) => a.message.includes('Aerator not running'));
    const field = all.find((a) => a.message.includes('Ponding'));
    expect(aerator?.status).toBe('resolved');
    expect(field?.status).toBe('open');
    await page.close();
  });

  it("records a pump-out's hauler and NYS DEC permit; half of it is refused in words", async () => {
    const page = await openPage('#/inspect/pine-hill/cleanout');
    const part = page.locator('#i-wastewater');
    await part.locator('legend:has-text("Who pumped the tank")').waitFor();
    await page.fill('#h-name', 'Valley Septic Service');
    await page.click('#inspect-form button[type="submit"]');
    await page.locator('#inspect-result:has-text("NYS DEC permit number")').waitFor();
    expect(await page.locator('#inspect-result').getAttribute('class')).toContain('msg-bad');
    await page.fill('#h-permit', '3-1234-00567');
    await page.click('#inspect-form button[type="submit"]');
    await page.locator('#inspect-result:has-text("Recorded inspection")').waitFor();
    const [rec] = (await get<InspectionJson[]>('/api/inspections?siteId=pine-hill')).filter(
      (i) => i.inspector === ENGINEER.name,
    );
    expect(rec).toMatchObject({
      kind: 'cleanout',
      hauler: { name: 'Valley Septic Service', permit: '3-1234-00567' },
    });
    // An annual inspection of a conventional septic system has no deficiencies part, nor has a routine one.
    await page.selectOption('#i-kind', 'annual');
    expect(await part.isHidden()).toBe(true);
    await page.close();
    expect(errors).toEqual([]);
    expect(csp).toEqual([]);
  });
});
