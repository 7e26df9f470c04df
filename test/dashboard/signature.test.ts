/**
 * Signing an inspection in the dashboard (real gateway, real Chromium): the developer's routine
 * inspection is not recorded unsigned (the form says so in words); signed with the mouse at 1366x900
 * (after a "Clear") and with a finger on a phone at 390x844, the drawing reaches the gateway as the
 * strokes drawn, and the inspection's page shows the statement, the drawing as an SVG and "Signed by NAME,
 * at TIME" in the site's zone. Typed offline on the phone, it is kept with its signature and sent with it. No console error, nothing the Content-Security-Policy blocked.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGNATURE_STATEMENT } from '../../shared/src/api/signatureWords.ts';
import { launchChromium, screenshot, watchPage } from '../helpers/browser.ts';
import { haveBinary, waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { PASSWORD, peopleApi, sha } from '../helpers/people.ts';

const ADMIN_TOKEN = 'signature-admin-token';
const INSPECTOR = { name: 'Ivy Inspector', email: 'ivy@town.example' };
const PATH = /^M\d+ \d+( [ML]\d+ \d+)+$/;

interface Signed {
  id: string;
  inspector: string;
  signature?: { name: string; method: string; drawing?: string };
}

describe.skipIf(!haveBinary('chromium'))('dashboard: signing an inspection', () => {
  let gw: TestGateway;
  let browser: Browser;
  const watched: Array<{ errors: string[]; csp: string[] }> = [];
  const api = () => peopleApi(gw.httpUrl, ADMIN_TOKEN);
  const inspections = async () =>
    (await api().call('GET', '/api/inspections?siteId=maple-ridge', undefined, api().admin))
      .body as unknown as Signed[];

  /** A signed-in browser of the size given (a phone has touch). */
  async function signedIn(
    viewport: { width: number; height: number },
    phone: boolean,
  ): Promise<BrowserContext> {
    const ctx = await browser.newContext({ viewport, hasTouch: phone });
    const page = await ctx.newPage();
    watched.push(watchPage(page));
    await page.goto(`${gw.httpUrl}/#/signin`);
    await page.fill('#signin-email', INSPECTOR.email);
    await page.fill('#signin-password', PASSWORD);
    await page.click('#signin-form button[type="submit"]');
    await page.waitForSelector('#who-name:has-text("Ivy Inspector")');
    await page.close();
    return ctx;
  }

  async function openForm(ctx: BrowserContext): Promise<Page> {
    const page = await ctx.newPage();
    watched.push(watchPage(page));
    await page.goto(`${gw.httpUrl}/#/inspect/maple-ridge/routine`);
    await page.waitForSelector('[data-practice="fence-n"]');
    await page.selectOption('#i-side', 'developer');
    await page.locator('[data-practice="fence-n"] label:has-text("In order")').click();
    return page;
  }

  /** The pad's box on the page, and a point at fractions of it. */
  async function padPoint(page: Page) {
    const box = (await page.locator('#i-sign-pad').boundingBox())!;
    return (fx: number, fy: number) => ({ x: box.x + box.width * fx, y: box.y + box.height * fy });
  }

  async function showPage(page: Page, id: string) {
    await page.goto(`${page.url().split('#')[0]}#/inspections/${id}`);
    await page.waitForSelector('#inspection-signature');
  }

  beforeAll(async () => {
    gw = await startTestGateway({
      auth: { tokens: [{ name: 'Ada Admin', role: 'admin', tokenSha256: sha(ADMIN_TOKEN) }] },
      sites: [
        {
          id: 'maple-ridge',
          name: 'Maple Ridge',
          kind: 'construction',
          timezone: 'America/New_York',
          practices: [{ id: 'fence-n', label: 'Silt fence, north boundary', kind: 'silt-fence' }],
          developerInspectors: [INSPECTOR.email],
          devices: [],
        },
      ],
    });
    await api().account(INSPECTOR.name, INSPECTOR.email, 'inspector');
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await gw?.cleanup();
  });

  it('asks for the signature, then takes one drawn with the mouse (1366x900)', async () => {
    const ctx = await signedIn({ width: 1366, height: 900 }, false);
    const page = await openForm(ctx);
    expect(await page.locator('#i-sign-statement').textContent()).toBe(SIGNATURE_STATEMENT);
    expect(await page.inputValue('#i-sign-name')).toBe(INSPECTOR.name);
    await page.click('#inspect-form button[type="submit"]');
    await page.waitForSelector('#inspect-result.msg-bad');
    expect(await page.locator('#inspect-result').textContent()).toMatch(
      /^Sign the inspection before recording it: .*draw your signature in the box or press "Sign with my typed name"\.$/,
    );
    expect(await inspections()).toHaveLength(0);

    // A scribble, cleared, then the signature: two strokes.
    const at = await padPoint(page);
    await page.mouse.move(at(0.5, 0.5).x, at(0.5, 0.5).y);
    await page.mouse.down();
    await page.mouse.move(at(0.9, 0.9).x, at(0.9, 0.9).y, { steps: 5 });
    await page.mouse.up();
    await page.click('#i-sign-clear');
    expect(await page.locator('#i-sign-state').textContent()).toMatch(/^Not signed yet/);
    for (const stroke of [
      [
        [0.1, 0.8],
        [0.2, 0.2],
        [0.3, 0.8],
      ],
      [
        [0.4, 0.5],
        [0.7, 0.45],
      ],
    ]) {
      const [first, ...rest] = stroke.map(([x, y]) => at(x!, y!));
      await page.mouse.move(first!.x, first!.y);
      await page.mouse.down();
      for (const p of rest) await page.mouse.move(p.x, p.y, { steps: 8 });
      await page.mouse.up();
    }
    expect(await page.locator('#i-sign-state').textContent()).toBe('Signed in the box.');
    await screenshot(page, 'signature-form-desktop');
    await page.click('#inspect-form button[type="submit"]');
    await page.waitForSelector('#inspect-result.msg-ok');

    const [i] = await inspections();
    expect(i?.signature?.name).toBe(INSPECTOR.name);
    expect(i?.signature?.method).toBe('drawn');
    const drawing = i!.signature!.drawing!;
    expect(drawing).toMatch(PATH);
    // Two strokes (the cleared scribble is gone), starting where the mouse went down in the pad's box.
    const moves = [...drawing.matchAll(/M(\d+) (\d+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
    expect(moves).toHaveLength(2);
    expect(Math.abs(moves[0]![0]! - 60)).toBeLessThanOrEqual(3);
    expect(Math.abs(moves[0]![1]! - 160)).toBeLessThanOrEqual(3);
    expect(Math.abs(moves[1]![0]! - 240)).toBeLessThanOrEqual(3);

    await showPage(page, i!.id);
    const block = page.locator('#inspection-signature');
    expect(await block.locator('svg.signature-drawing path').getAttribute('d')).toBe(drawing);
    expect(await block.textContent()).toContain(SIGNATURE_STATEMENT);
    expect(await block.locator('.signed-by').textContent()).toMatch(
      /^Signed by Ivy Inspector, at \w{3} \d+, \d{4}, \d+:\d\d [AP]M E[SD]T$/,
    );
    await screenshot(page, 'signature-inspection-page-desktop');
    await ctx.close();
  });

  it('takes a signature drawn with a finger on a phone (390x844)', async () => {
    const ctx = await signedIn({ width: 390, height: 844 }, true);
    const page = await openForm(ctx);
    await page.locator('#i-sign-pad').scrollIntoViewIfNeeded();
    const at = await padPoint(page);
    const cdp = await ctx.newCDPSession(page);
    const touch = (type: string, p?: { x: number; y: number }) =>
      cdp.send('Input.dispatchTouchEvent', {
        type: type as 'touchStart',
        touchPoints: p ? [{ x: Math.round(p.x), y: Math.round(p.y) }] : [],
      });
    await touch('touchStart', at(0.1, 0.3));
    for (let n = 1; n <= 10; n++) await touch('touchMove', at(0.1 + n * 0.08, 0.3 + (n % 2) * 0.4));
    await touch('touchEnd');
    expect(await page.locator('#i-sign-state').textContent()).toBe('Signed in the box.');
    await screenshot(page, 'signature-form-phone');
    // Without a signal: kept on the phone with its signature, and sent with it when the signal returns.
    const before = (await inspections()).length;
    await ctx.setOffline(true);
    await page.click('#inspect-form button[type="submit"]');
    await page.waitForSelector('#inspect-result.msg-warn');
    expect(await inspections()).toHaveLength(before);
    await ctx.setOffline(false);
    await page.evaluate(() => window.dispatchEvent(new Event('online')));
    await waitFor(
      async () => (await inspections()).length > before || undefined,
      20_000,
      'the kept inspection',
    );

    const list = await inspections();
    expect(list.length).toBeGreaterThanOrEqual(1);
    const drawing = list[0]!.signature!.drawing!;
    expect(list[0]!.signature!.method).toBe('drawn');
    expect(drawing).toMatch(PATH);
    expect(drawing.split(' M')).toHaveLength(1);
    expect(drawing.split(' L').length).toBeGreaterThanOrEqual(10);

    await showPage(page, list[0]!.id);
    expect(await page.locator('#inspection-signature svg.signature-drawing path').getAttribute('d')).toBe(
      drawing,
    );
    await screenshot(page, 'signature-inspection-page-phone');
    await ctx.close();
    // Requests made while offline are reported as such: no fault.
    for (const w of watched)
      expect({ ...w, errors: w.errors.filter((e) => !/ERR_INTERNET_DISCONNECTED/.test(e)) }).toEqual({
        errors: [],
        csp: [],
      });
  });
});
