/**
 * The inspection record, whole, as its people use it (real gateway, real Chromium at 1366x900 and
 * 390x844, the PDF rendered by pdftoppm):
 * 1. a new administrator sets up a construction site from the dashboard (the Sites page) and its practices
 *    (the site's page), naming the town's inspector as inspecting for the developer;
 * 2. the inspector opens the field form once, the gateway goes out of reach (the phone still says it is
 *    online), and in a new tab from a cold start records the developer's routine inspection: a finding at
 *    each practice, a photo, a signature drawn in the box; it is saved on the phone and sent by itself
 *    when the gateway is back;
 * 3. the report's PDF shows the findings and the photo, and no box runs past the page's right margin;
 * 4. a visitor who is not signed in sees the sign-in page and nothing private, and the API refuses them.
 * Screenshots: whole-*-desktop and whole-*-phone.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshot, watchPage } from '../helpers/browser.ts';
import { haveBinary } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { inkInRightStrip, pdfPages, pixelsOf } from '../helpers/pdfPages.ts';
import { PASSWORD, peopleApi, sha } from '../helpers/people.ts';
import { png } from '../helpers/photos.ts';
import { fetchAnonymous } from '../helpers/viewerFetch.ts';

const ADMIN_TOKEN = 'whole-record-admin-token';
const ADMIN = { name: 'Nora Newadmin', email: 'nora@town.example' };
const INSPECTOR = { name: 'Ivy Inspector', email: 'ivy@town.example' };
const ZONE = 'America/New_York';
const DESKTOP = { width: 1366, height: 900 };
const PHONE = { width: 390, height: 844 };
const FENCE = 'Silt fence, east boundary';
const INLET = 'Inlet protection at catch basin CB-2';
/** The photo: a green nothing else on the printed page uses. */
const GREEN: [number, number, number] = [20, 200, 40];
const isGreen = (r: number, g: number, b: number) => g > 170 && r < 70 && b < 90;
/** What Chromium logs of the requests the stopped gateway refused: expected, and nothing else. */
const REFUSED = /^Failed to load resource: net::ERR_CONNECTION_REFUSED$/;

interface Stored {
  id: string;
  inspector: string;
  side: string;
  findings?: Array<{ practice: string; status: string; note: string; photos: string[] }>;
  signature?: { name: string; method: string; drawing?: string };
}

describe.skipIf(!(haveBinary('chromium') && haveBinary('pdftoppm')))(
  'the inspection record, from setting up the site to the printed report',
  () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gw-whole-'));
    const dir = mkdtempSync(join(tmpdir(), 'whole-pdf-'));
    let gw: TestGateway;
    let port = 0;
    let browser: Browser;
    const api = () => peopleApi(gw.httpUrl, ADMIN_TOKEN);
    const start = () =>
      startTestGateway(
        {
          sites: [],
          auth: { tokens: [{ name: 'Setup token', role: 'admin', tokenSha256: sha(ADMIN_TOKEN) }] },
          ...(port ? { http: { port } } : {}),
        },
        { dataDir, sitesAsGiven: true },
      );

    beforeAll(async () => {
      gw = await start();
      port = Number(new URL(gw.httpUrl).port);
      await api().account(ADMIN.name, ADMIN.email, 'admin');
      await api().account(INSPECTOR.name, INSPECTOR.email, 'inspector');
      browser = await launchChromium();
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
      await gw?.cleanup();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(dir, { recursive: true, force: true });
    });

    async function signIn(page: Page, who: { email: string; name: string }) {
      await page.goto(`${gw.httpUrl}/#/signin`);
      await page.fill('#signin-email', who.email);
      await page.fill('#signin-password', PASSWORD);
      await page.click('#signin-form button[type="submit"]');
      await page.waitForSelector(`#who-name:has-text("${who.name}")`);
    }
    const shoot = async (page: Page, name: string) => {
      await page.setViewportSize(DESKTOP);
      await screenshot(page, `${name}-desktop`);
      await page.setViewportSize(PHONE);
      await screenshot(page, `${name}-phone`);
      await page.setViewportSize(DESKTOP);
    };

    it('a new administrator sets up the site and its practices from the dashboard', async () => {
      const page = await browser.newPage({ viewport: DESKTOP });
      const seen = watchPage(page);
      await signIn(page, ADMIN);
      await page.click(`a[href="#/manage"]`);
      await page.click('#site-add-box summary');
      const form = page.locator('#site-add');
      await form.getByLabel('Site id').fill('elm-court');
      await form.getByLabel('Name', { exact: true }).fill('Elm Court');
      await form.getByLabel('Kind').selectOption('construction');
      await form.getByLabel('Time zone').fill(ZONE);
      const inspectors = form.getByLabel('Town accounts that inspect for the developer or owner');
      if (!(await inspectors.isVisible()))
        await form.locator('details:has(textarea) > summary').first().click();
      await inspectors.fill(INSPECTOR.email);
      await form.locator('button[type="submit"]').click();
      await expect.poll(async () => (await api().call('GET', '/api/sites/elm-court')).status).toBe(200);

      await page.goto(`${gw.httpUrl}/#/site/elm-court`);
      await page.locator('#practice-add').waitFor();
      for (const [label, kind] of [
        [FENCE, 'silt-fence'],
        [INLET, 'inlet-protection'],
      ] as const) {
        await page.fill('#pr-new-label', label);
        await page.selectOption('#pr-new-kind', kind);
        await page.click('#practice-add button[type="submit"]');
        await page.locator('#practices-table tbody tr', { hasText: label }).waitFor();
      }
      await page.locator('#practices-h').scrollIntoViewIfNeeded();
      await shoot(page, 'whole-site-practices');
      const site = (await api().call('GET', '/api/sites/elm-court')).body as unknown as {
        practices?: Array<{ label: string }>;
        developerInspectors?: string[];
      };
      expect(site.practices?.map((p) => p.label)).toEqual([FENCE, INLET]);
      expect(site.developerInspectors).toEqual([INSPECTOR.email]);
      expect(seen.errors).toEqual([]);
      expect(seen.csp).toEqual([]);
      await page.close();
    }, 120_000);

    it('the inspector records it offline from a cold start, with findings, a photo and a signature', async () => {
      const ctx = await browser.newContext({
        viewport: PHONE,
        hasTouch: true,
        timezoneId: 'America/Chicago',
      });
      const first = await ctx.newPage();
      await signIn(first, INSPECTOR);
      await first.goto(`${gw.httpUrl}/#/inspect/elm-court`);
      await first.locator('[data-practice]', { hasText: FENCE }).waitFor();
      await first.waitForFunction(() => navigator.serviceWorker.controller !== null);
      await first.close();
      await gw.stop();

      const page = await ctx.newPage();
      const seen = watchPage(page);
      await page.goto(`${gw.httpUrl}/#/inspect/elm-court`);
      await page.reload();
      await page.waitForSelector('#field-mode:not([hidden])');
      expect(await page.evaluate(() => navigator.onLine)).toBe(true);
      expect(await page.isHidden('#view-signin')).toBe(true);
      await page.selectOption('#i-site', 'elm-court');
      await page.selectOption('#i-kind', 'routine');
      await page.selectOption('#i-side', 'developer');
      const fence = page.locator('[data-practice]', { hasText: FENCE });
      await fence.locator('label:has-text("Needs maintenance")').click();
      await fence.locator('textarea').fill('Fabric sagging over 20 ft at the east corner.');
      await fence
        .locator('input[type="file"]')
        .setInputFiles({ name: 'fence.png', mimeType: 'image/png', buffer: png(200, 150, GREEN) });
      await fence.locator('.thumb img').waitFor();
      await page.locator('[data-practice]', { hasText: INLET }).locator('label:has-text("In order")').click();
      // The signature, drawn in the box: two strokes.
      const pad = page.locator('#i-sign-pad');
      await pad.scrollIntoViewIfNeeded();
      const box = (await pad.boundingBox())!;
      for (const stroke of [
        [
          [0.1, 0.7],
          [0.3, 0.2],
          [0.5, 0.7],
        ],
        [
          [0.6, 0.5],
          [0.9, 0.4],
        ],
      ]) {
        const [[x0, y0], ...rest] = stroke as [[number, number], ...[number, number][]];
        await page.mouse.move(box.x + x0 * box.width, box.y + y0 * box.height);
        await page.mouse.down();
        for (const [x, y] of rest)
          await page.mouse.move(box.x + x * box.width, box.y + y * box.height, { steps: 6 });
        await page.mouse.up();
      }
      expect(await page.locator('#i-sign-state').textContent()).toBe('Signed in the box.');
      await page.click('#i-submit');
      await page.waitForSelector('#inspect-result.msg-warn');
      expect(await page.locator('#outbox-list li .outbox-site').textContent()).toBe('Elm Court');
      await shoot(page, 'whole-offline-saved');

      gw = await start();
      await page.waitForSelector('#inspect-result.msg-ok', { timeout: 60_000 });
      expect(await page.locator('#inspect-result').textContent()).toMatch(
        /^Sent: the inspection of Elm Court at /,
      );
      const list = (await api().call('GET', '/api/inspections?siteId=elm-court')).body as unknown as Stored[];
      expect(list.map((i) => [i.inspector, i.side])).toEqual([[INSPECTOR.name, 'developer']]);
      const one = (await api().call('GET', `/api/inspections/${list[0]!.id}`)).body as unknown as Stored;
      expect(one.findings?.map((f) => [f.status, f.photos.length])).toEqual([
        ['maintenance', 1],
        ['ok', 0],
      ]);
      expect(one.signature?.method).toBe('drawn');
      expect(one.signature?.drawing).toMatch(/^M\d+ \d+ L/);
      expect(seen.errors.filter((e) => !REFUSED.test(e))).toEqual([]);
      expect(seen.csp).toEqual([]);

      // Its page: the findings, the photo, the signature.
      await page.goto(`${gw.httpUrl}/#/inspections/${one.id}`);
      await page.locator('#inspection-signature svg').waitFor();
      await shoot(page, 'whole-inspection-page');
      await ctx.close();
    }, 240_000);

    it("prints the findings and the photo in the report's PDF, with no box past the margin", async () => {
      const day = new Intl.DateTimeFormat('en-CA', { timeZone: ZONE }).format(new Date());
      const res = await fetch(
        `${gw.httpUrl}/api/reports/compliance?siteId=elm-court&from=${day}&to=${day}&format=pdf`,
        { headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, signal: AbortSignal.timeout(150_000) },
      );
      expect(res.status).toBe(200);
      const file = join(dir, 'report.pdf');
      writeFileSync(file, Buffer.from(await res.arrayBuffer()));
      const pages = pdfPages(file);
      expect(pages.length).toBeGreaterThan(0);
      // The photo's green printed (most of a 96 px thumbnail at 100 dpi), and nothing cut at the right.
      expect(Math.max(...pages.map((p) => pixelsOf(p, isGreen)))).toBeGreaterThan(4000);
      expect(pages.map(inkInRightStrip)).toEqual(pages.map(() => 0));
      const html = await (
        await fetch(
          `${gw.httpUrl}/api/reports/compliance?siteId=elm-court&from=${day}&to=${day}&format=html`,
          {
            headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
          },
        )
      ).text();
      expect(html).toContain(FENCE);
      expect(html).toContain('Fabric sagging over 20 ft at the east corner.');
      expect(html).toContain(`Signed by ${INSPECTOR.name}`);
    }, 180_000);

    it('shows a visitor who is not signed in nothing private', async () => {
      for (const path of ['/api/sites', '/api/sites/elm-court', '/api/inspections?siteId=elm-court'])
        expect([path, (await fetchAnonymous(`${gw.httpUrl}${path}`)).status]).toEqual([path, 401]);
      const page = await browser.newPage({ viewport: DESKTOP });
      const seen = watchPage(page);
      const asked: string[] = [];
      page.on('request', (r) => {
        if (new URL(r.url()).pathname.startsWith('/api/')) asked.push(new URL(r.url()).pathname);
      });
      await page.goto(`${gw.httpUrl}/#/site/elm-court`);
      await page.waitForSelector('#view-signin:not([hidden])');
      await shoot(page, 'whole-visitor');
      const text = await page.locator('body').innerText();
      for (const secret of ['Elm Court', FENCE, INSPECTOR.name, INSPECTOR.email])
        expect(text).not.toContain(secret);
      expect(asked.filter((p) => !['/api/auth/me', '/api/health'].includes(p))).toEqual([]);
      expect(seen.csp).toEqual([]);
      await page.close();
    }, 60_000);
  },
);
