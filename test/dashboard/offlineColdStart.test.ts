/**
 * The field form from a cold start (real Chromium, real gateway): opened once with the gateway there, the
 * page keeps a copy of what the form needs; then the gateway is stopped (the phone still says it is
 * online, as one does on a network with no way to the gateway) and the form is opened in a new tab and
 * reloaded: it works from the copy (the sites by name, the checklist, the site's time), an inspection
 * with a photo is saved on the phone and listed in words; the gateway started again, it is sent by
 * itself and stored with its findings and photo. A session the gateway no longer knows asks to sign in
 * again, and what waits on the phone stays there until it is sent.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Practice } from '../../shared/src/api/findings.ts';
import { launchChromium, screenshot, watchPage } from '../helpers/browser.ts';
import { haveBinary } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { PASSWORD, peopleApi, sha } from '../helpers/people.ts';
import { PNG_1X1 } from '../helpers/photos.ts';

const ADMIN_TOKEN = 'offline-cold-start-admin-token';
const INSPECTOR = { name: 'Ivy Inspector', email: 'ivy@town.example' };
const ZONE = 'America/New_York';
const PRACTICES: Practice[] = [
  { id: 'fence-n', label: 'Silt fence, north boundary', kind: 'silt-fence' },
  { id: 'inlet-1', label: 'Inlet protection at Elm Street', kind: 'inlet-protection' },
];
const SITES = [
  {
    id: 'maple-ridge',
    name: 'Maple Ridge',
    kind: 'construction' as const,
    timezone: ZONE,
    practices: PRACTICES,
  },
  { id: 'birch-hollow', name: 'Birch Hollow', kind: 'construction' as const, timezone: ZONE, practices: [] },
];
/** A time as the dashboard writes it: "Dec 7, 2026, 4:05 PM EST". */
const LOCAL_TIME = /\b[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2} [AP]M E[SD]T\b/;
/**
 * What Chromium logs of a request the stopped gateway refused (the API, the live feed): the expected
 * failures, and nothing else is let through.
 */
const REFUSED = /^Failed to load resource: net::ERR_CONNECTION_REFUSED$/;

interface InspectionJson {
  id: string;
  siteId: string;
  inspector: string;
  kind: string;
  side: string;
  findings?: Array<{ practice: string; status: string; note: string; photos: string[] }>;
  signature?: { name: string; method: string; drawing?: string };
}

describe.skipIf(!haveBinary('chromium'))('dashboard: the field form opened without the gateway', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-cold-'));
  let gw: TestGateway;
  let port = 0;
  let browser: Browser;
  const api = () => peopleApi(gw.httpUrl, ADMIN_TOKEN);
  const start = async () =>
    startTestGateway(
      {
        auth: { tokens: [{ name: 'Ada Admin', role: 'admin', tokenSha256: sha(ADMIN_TOKEN) }] },
        // The inspector may enter the developer's inspections at these sites.
        sites: SITES.map((s) => ({ ...s, devices: [], developerInspectors: [INSPECTOR.email] })),
        ...(port ? { http: { port } } : {}),
      },
      { dataDir },
    );
  const inspections = async () => {
    const r = await api().call('GET', '/api/inspections?siteId=maple-ridge', undefined, api().admin);
    expect(r.status).toBe(200);
    return (r.body as unknown as InspectionJson[]).filter((i) => i.inspector === INSPECTOR.name);
  };

  beforeAll(async () => {
    gw = await start();
    port = Number(new URL(gw.httpUrl).port);
    await api().account(INSPECTOR.name, INSPECTOR.email, 'inspector');
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await gw?.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A phone (in another zone than the site's) signed in, the form opened once with the gateway there. */
  async function preparedPhone(): Promise<BrowserContext> {
    // A test that failed with the gateway stopped leaves it stopped: the next one starts it again.
    if ((await gatewayState()) === 'stopped') gw = await start();
    const ctx = await browser.newContext({
      viewport: { width: 390, height: 844 },
      timezoneId: 'America/Denver',
    });
    const page = await ctx.newPage();
    const seen = watchPage(page);
    await page.goto(`${gw.httpUrl}/#/signin`);
    await page.fill('#signin-email', INSPECTOR.email);
    await page.fill('#signin-password', PASSWORD);
    await page.click('#signin-form button[type="submit"]');
    await page.waitForSelector('#who-name:has-text("Ivy Inspector")');
    await page.goto(`${gw.httpUrl}/#/inspect/maple-ridge`);
    await page.waitForSelector('[data-practice="fence-n"]');
    // The page's files kept (the service worker), and the copy of what the form needs.
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    const copy = JSON.parse((await page.evaluate(() => localStorage.getItem('gateway.fieldCopy'))) ?? '{}');
    expect(copy.person).toEqual({ name: INSPECTOR.name, role: 'inspector', sites: null });
    expect(copy.sites.map((s: { name: string }) => s.name)).toEqual(['Maple Ridge', 'Birch Hollow']);
    expect(copy.rules.map((r: { label: string }) => r.label)).toContain('Storm inspection');
    expect(JSON.stringify(copy)).not.toMatch(/csrf|password|token/i);
    expect(seen.errors).toEqual([]);
    expect(seen.csp).toEqual([]);
    // Closed before the gateway stops: its live feed is not left hanging on the stopping gateway.
    await page.close();
    return ctx;
  }

  /** A new tab at the form's address, reloaded, with the gateway stopped: it must work from the copy. */
  async function coldTab(ctx: BrowserContext) {
    const page = await ctx.newPage();
    const seen = watchPage(page);
    page.on('console', (m) => said.push(`${Date.now() % 100_000} ${m.type()}: ${m.text()}`));
    await page.goto(`${gw.httpUrl}/#/inspect/maple-ridge`);
    await page.reload();
    await page.waitForSelector('#field-mode:not([hidden])');
    return { page, seen };
  }

  /** What the cold tab wrote to its console: shown when a wait fails. */
  const said: string[] = [];
  const telling = (e: Error) => {
    throw new Error(`${e.message}\nthe page said:\n${said.join('\n')}`);
  };

  /** The console's errors, less the requests the stopped gateway refused (and only those). */
  const unexpected = (errors: string[]) => errors.filter((e) => !REFUSED.test(e));

  it('opens from the copy, saves on the phone, and sends when the gateway is back', async () => {
    const ctx = await preparedPhone();
    await gw.stop();
    const { page, seen } = await coldTab(ctx);
    // The phone says it is online: the gateway is known to be out of reach by a failed request.
    expect(await page.evaluate(() => navigator.onLine)).toBe(true);
    const mode = (await page.locator('#field-mode').textContent()) ?? '';
    expect(mode).toMatch(
      /^The gateway cannot be reached — working from the copy kept on this phone, taken [A-Z][a-z]{2} \d/,
    );
    expect(mode).toMatch(LOCAL_TIME);
    // Signed in as kept on the phone: no sign-in page.
    expect(await page.isHidden('#view-signin')).toBe(true);
    expect(await page.isVisible('#view-inspect')).toBe(true);
    expect(await page.locator('#who-name').textContent()).toBe(INSPECTOR.name);
    expect(await page.locator('#who-kept').textContent()).toContain('kept on this phone');
    expect(await page.locator('#i-site option').allTextContents()).toEqual(['Maple Ridge', 'Birch Hollow']);
    expect(await page.inputValue('#i-site')).toBe('maple-ridge');
    expect(await page.locator('#i-at-zone').textContent()).toContain(ZONE);
    expect(await page.inputValue('#i-at')).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/);
    expect(await page.inputValue('#i-inspector')).toBe(INSPECTOR.name);
    expect(await page.locator('#i-checklist legend').allTextContents()).toEqual(
      expect.arrayContaining(['Practices', 'Silt fence, north boundary']),
    );
    expect(await page.locator('#i-submit').textContent()).toBe('Save on this phone');
    await page.setViewportSize({ width: 1366, height: 900 });
    await screenshot(page, 'offline-cold-start-desktop');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'offline-cold-start-phone');

    await page.selectOption('#i-kind', 'storm');
    await page.selectOption('#i-side', 'developer');
    const fence = page.locator('[data-practice="fence-n"]');
    await fence.locator('label:has-text("Needs maintenance")').click();
    await fence.locator('textarea').fill('Fabric torn at the north corner.');
    await fence
      .locator('input[type="file"]')
      .setInputFiles({ name: 'fence.png', mimeType: 'image/png', buffer: PNG_1X1 });
    await fence.locator('.thumb img').waitFor();
    await page.locator('[data-practice="inlet-1"] label:has-text("In order")').click();
    // The developer's storm inspection is signed: with the typed name, as a phone without a pen would.
    await page.click('#i-sign-typed-button');
    await page.click('#i-submit');
    await page.waitForSelector('#inspect-result.msg-warn');
    expect(await page.locator('#inspect-result').textContent()).toMatch(/^Saved on this phone, not yet sent/);
    const item = page.locator('#outbox-list li');
    expect(await item.count()).toBe(1);
    // In words: the site's name, the kind and the duty, the time in the site's zone; no id, no UTC.
    expect(await item.locator('.outbox-site').textContent()).toBe('Maple Ridge');
    expect(await item.locator('.outbox-kind').textContent()).toBe(
      'Storm (after a qualifying storm) — for the duties: Storm inspection, Routine 7-day inspection',
    );
    expect(await item.locator('.outbox-at').textContent()).toMatch(LOCAL_TIME);
    const words = (await item.textContent()) ?? '';
    expect(words).toContain('1 photo');
    expect(words).not.toMatch(/maple-ridge|storm-inspection|UTC|\dZ\b/);
    await page.setViewportSize({ width: 1366, height: 900 });
    await screenshot(page, 'offline-queue-desktop');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'offline-queue-phone');
    expect(await gatewayState()).toBe('stopped');

    // The gateway back (its address and store as before): the page finds it by itself and sends.
    gw = await start();
    await page.waitForSelector('#inspect-result.msg-ok', { timeout: 60_000 }).catch(telling);
    const sent = (await page.locator('#inspect-result').textContent()) ?? '';
    expect(sent).toMatch(/^Sent: the inspection of Maple Ridge at /);
    expect(sent).toMatch(LOCAL_TIME);
    expect(sent).not.toMatch(/maple-ridge|UTC/);
    await page.waitForSelector('#outbox', { state: 'hidden' });
    await page.waitForSelector('#field-mode', { state: 'hidden' });
    expect(await page.locator('#i-submit').textContent()).toBe('Record inspection');
    expect(await page.locator('#who-kept').count()).toBe(0);

    const [listed, ...more] = await inspections();
    expect(more).toEqual([]);
    const one = await api().call('GET', `/api/inspections/${listed?.id}`, undefined, api().admin);
    expect(one.status).toBe(200);
    const stored = one.body as unknown as InspectionJson;
    expect([stored.siteId, stored.kind, stored.side]).toEqual(['maple-ridge', 'storm', 'developer']);
    const hash = createHash('sha256').update(PNG_1X1).digest('hex');
    expect(stored.findings).toEqual([
      {
        practice: 'fence-n',
        status: 'maintenance',
        note: 'Fabric torn at the north corner.',
        photos: [hash],
      },
      { practice: 'inlet-1', status: 'ok', note: '', photos: [] },
    ]);
    expect(stored.signature).toEqual({ name: INSPECTOR.name, method: 'typed' });
    const photo = await fetch(`${gw.httpUrl}/api/photos/${hash}`, { headers: api().admin });
    expect(photo.status).toBe(200);
    expect(Buffer.from(await photo.arrayBuffer()).equals(PNG_1X1)).toBe(true);
    expect(unexpected(seen.errors)).toEqual([]);
    expect(seen.csp).toEqual([]);
    await ctx.close();
  }, 180_000);

  it('asks to sign in again when the session ended, keeping what waits on the phone', async () => {
    const ctx = await preparedPhone();
    await gw.stop();
    const { page, seen } = await coldTab(ctx);
    await page.selectOption('#i-site', 'birch-hollow');
    await page.selectOption('#i-kind', 'routine');
    await page.fill('#i-notes', 'Entrance swept; no tracking onto the road.');
    await page.click('#i-submit');
    await page.waitForSelector('#outbox-list li');
    expect(await page.locator('#outbox-list li .outbox-site').textContent()).toBe('Birch Hollow');
    // The session is gone (the cookie dropped, as when it ended): back, the gateway answers 401.
    await ctx.clearCookies();
    gw = await start();
    await page.waitForSelector('#view-signin:not([hidden])', { timeout: 60_000 }).catch(telling);
    expect(await page.isVisible('#signin-expired')).toBe(true);
    expect(await page.locator('#outbox-count').textContent()).toBe('1 inspection waiting to be sent');
    await page.fill('#signin-email', INSPECTOR.email);
    await page.fill('#signin-password', PASSWORD);
    await page.click('#signin-form button[type="submit"]');
    await page.waitForSelector('#outbox-count', { state: 'hidden', timeout: 15_000 });
    const birch = await api().call('GET', '/api/inspections?siteId=birch-hollow', undefined, api().admin);
    expect((birch.body as unknown as InspectionJson[]).map((i) => [i.inspector, i.kind])).toEqual([
      [INSPECTOR.name, 'routine'],
    ]);
    expect(unexpected(seen.errors).filter((e) => !/status of 401/.test(e))).toEqual([]);
    expect(seen.csp).toEqual([]);
    await ctx.close();
  }, 180_000);

  /** Whether the gateway is stopped: its address refuses the connection. */
  async function gatewayState(): Promise<string> {
    return fetch(`${gw.httpUrl}/api/health`).then(
      (r) => `answered ${r.status}`,
      () => 'stopped',
    );
  }
});
