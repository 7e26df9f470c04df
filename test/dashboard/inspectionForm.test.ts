/**
 * The inspection form in the field (real Chromium at phone size, real gateway): the site's practices as a
 * checklist, photos taken on the spot (a large one made smaller on the phone), the inspection recorded
 * with its findings and the photos' hashes; then, with the phone offline, an inspection kept on the
 * phone (nothing at the gateway), the page opened again without a connection, and on reconnecting the inspection
 * arriving with its original time and its own id, exactly once.
 */
import { createHash } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Practice } from '../../shared/src/api/findings.ts';
import { launchChromium, screenshot, watchCsp } from '../helpers/browser.ts';
import { haveBinary, waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { PASSWORD, peopleApi, sha } from '../helpers/people.ts';
import { png } from '../helpers/photos.ts';

const ADMIN_TOKEN = 'inspection-form-admin-token';
const INSPECTOR = { name: 'Ivy Inspector', email: 'ivy@town.example' };
const ZONE = 'America/New_York';
const HOUR = 3_600_000;
const PRACTICES: Practice[] = [
  { id: 'fence-n', label: 'Silt fence, north boundary', kind: 'silt-fence' },
  { id: 'inlet-1', label: 'Inlet protection at Elm Street', kind: 'inlet-protection' },
];

/** A datetime-local value ("2026-12-02T07:15") of a time in a zone. */
function wallClock(ms: number, tz: string): string {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
    })
      .formatToParts(ms)
      .map((x) => [x.type, x.value]),
  );
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}`;
}

interface InspectionJson {
  id: string;
  at: string;
  inspector: string;
  kind: string;
  findings?: Array<{ practice: string; status: string; note: string; photos: string[] }>;
}

describe.skipIf(!haveBinary('chromium'))(
  'dashboard: the inspection form on a phone, online and offline',
  () => {
    let gw: TestGateway;
    let browser: Browser;
    let ctx: BrowserContext;
    const errors: string[] = [];
    const csp: string[] = [];
    /** What the pages wrote to their console: shown when a wait fails. */
    const said: string[] = [];
    /** While the phone is offline, the browser says so of every request that cannot go: that is no fault. */
    let offline = false;
    /**
     * The test went offline: a request made while offline may be reported after the connection is back
     * (console messages arrive on their own, after the page's next answer at times), so such a report is
     * no fault until the test ends. Any other console error still is.
     */
    let wentOffline = false;
    const noConnection = /ERR_INTERNET_DISCONNECTED/;
    const small = png(40, 30, [200, 120, 40]);
    const large = png(3000, 1500, [40, 120, 200]);
    const offlinePhoto = png(24, 24, [10, 160, 60]);
    const hex = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    const api = () => peopleApi(gw.httpUrl, ADMIN_TOKEN);
    const inspections = async () => {
      const r = await api().call('GET', '/api/inspections?siteId=maple-ridge', undefined, api().admin);
      expect(r.status).toBe(200);
      return (r.body as unknown as InspectionJson[]).filter((i) => i.inspector === INSPECTOR.name);
    };
    const photo = (hash: string) =>
      fetch(`${gw.httpUrl}/api/photos/${hash}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });

    async function openPage(hash: string): Promise<Page> {
      const page = await ctx.newPage();
      watchCsp(page, csp);
      page.on('console', (m) => {
        said.push(`${Date.now() % 100000} ${m.type()}: ${m.text()}`);
        if (m.type() === 'error' && !((offline || wentOffline) && noConnection.test(m.text())))
          errors.push(m.text());
      });
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${gw.httpUrl}/${hash}`);
      return page;
    }

    // A test that fails offline leaves the next one online: no failure is passed on to the tests after it.
    afterEach(async () => {
      wentOffline = false;
      if (!offline) return;
      offline = false;
      await ctx.setOffline(false);
    });

    beforeAll(async () => {
      gw = await startTestGateway({
        auth: { tokens: [{ name: 'Ada Admin', role: 'admin', tokenSha256: sha(ADMIN_TOKEN) }] },
        sites: [
          {
            id: 'maple-ridge',
            name: 'Maple Ridge',
            kind: 'construction',
            timezone: ZONE,
            practices: PRACTICES,
            devices: [],
          },
        ],
      });
      await api().account(INSPECTOR.name, INSPECTOR.email, 'inspector');
      browser = await launchChromium();
      // A phone in another zone than the site's: the form speaks the site's.
      ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, timezoneId: 'America/Denver' });
      const page = await openPage('#/signin');
      await page.fill('#signin-email', INSPECTOR.email);
      await page.fill('#signin-password', PASSWORD);
      await page.click('#signin-form button[type="submit"]');
      await page.waitForSelector('#who-name:has-text("Ivy Inspector")');
      await page.close();
    });
    afterAll(async () => {
      await ctx?.close();
      await browser?.close();
      await gw?.cleanup();
    });

    it('records the checklist with its photos, a large one made smaller on the phone', async () => {
      const page = await openPage('#/inspect/maple-ridge/routine');
      await page.waitForSelector('[data-practice="fence-n"]');
      expect(await page.inputValue('#i-inspector')).toBe(INSPECTOR.name);
      expect(await page.inputValue('#i-kind')).toBe('routine');
      // A town account records the town's inspection unless it says it enters one for the developer.
      expect(await page.inputValue('#i-side')).toBe('town');
      expect(await page.locator('#i-side-note').textContent()).toMatch(/does not meet the developer's/);
      expect(await page.locator('#i-at-zone').textContent()).toContain(ZONE);
      // Now, in the site's zone (not the phone's).
      const at = await page.inputValue('#i-at');
      expect([wallClock(Date.now(), ZONE), wallClock(Date.now() - 60_000, ZONE)]).toContain(at);
      expect(await page.locator('#i-checklist legend').allTextContents()).toEqual(
        expect.arrayContaining([
          'Practices',
          'Silt fence, north boundary',
          expect.stringContaining('Inlet protection'),
        ]),
      );

      const fence = page.locator('[data-practice="fence-n"]');
      const inlet = page.locator('[data-practice="inlet-1"]');
      await fence.locator('label:has-text("Needs maintenance")').click();
      await fence.locator('textarea').fill('Fabric torn over 3 m at the north corner.');
      await fence
        .locator('input[type="file"]')
        .setInputFiles({ name: 'fence.png', mimeType: 'image/png', buffer: small });
      await inlet.locator('label:has-text("In order")').click();
      await inlet
        .locator('input[type="file"]')
        .setInputFiles({ name: 'inlet.png', mimeType: 'image/png', buffer: large });
      await fence.locator('.thumb img').waitFor();
      await inlet.locator('.thumb img').waitFor();
      // The previews load (the policy lets the page show its own object URLs); the large photo is a JPEG
      // of 2000 px now, the small one as it was.
      const sizes = await page.$$eval('.thumb img', (imgs) =>
        (imgs as HTMLImageElement[]).map((i) => [i.complete, i.naturalWidth, i.naturalHeight]),
      );
      expect(sizes).toEqual([
        [true, 40, 30],
        [true, 2000, 1000],
      ]);
      await screenshot(page, 'inspection-form-phone');

      await page.click('#inspect-form button[type="submit"]');
      await page.waitForSelector('#inspect-result.msg-ok');
      expect(await page.locator('#inspect-result').textContent()).toMatch(/^Recorded inspection /);
      const [recorded, ...more] = await inspections();
      expect(more).toEqual([]);
      expect(recorded?.kind).toBe('routine');
      const findings = recorded?.findings ?? [];
      expect(findings.map((f) => [f.practice, f.status, f.note])).toEqual([
        ['fence-n', 'maintenance', 'Fabric torn over 3 m at the north corner.'],
        ['inlet-1', 'ok', ''],
      ]);
      expect(findings[0]?.photos).toEqual([hex(small)]);
      const stored = await photo(hex(small));
      expect(stored.status).toBe(200);
      expect(Buffer.from(await stored.arrayBuffer()).equals(small)).toBe(true);
      const shrunk = await photo(findings[1]?.photos[0] ?? 'none');
      expect(shrunk.status).toBe(200);
      expect(shrunk.headers.get('content-type')).toMatch(/^image\/jpeg/);
      // The form is empty again for the next inspection.
      expect(await page.locator('.thumb').count()).toBe(0);
      expect(await page.locator('#i-checklist input:checked').count()).toBe(0);
      expect(errors).toEqual([]);
      expect(csp).toEqual([]);
      await page.close();
    });

    it('keeps an inspection typed offline on the phone, and sends it once with its own time when back', async () => {
      const page = await openPage('#/inspect/maple-ridge');
      await page.waitForSelector('[data-practice="fence-n"]');
      // The page is kept on the phone (its service worker), so that it opens without a connection.
      await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
      offline = true;
      wentOffline = true;
      await ctx.setOffline(true);
      const twoHoursAgo = wallClock(Date.now() - 2 * HOUR, ZONE);
      await page.fill('#i-at', twoHoursAgo);
      await page.selectOption('#i-kind', 'storm');
      const fence = page.locator('[data-practice="fence-n"]');
      await fence.locator('label:has-text("Violation")').click();
      await fence.locator('textarea').fill('Sediment over the fence into the wetland.');
      await fence
        .locator('input[type="file"]')
        .setInputFiles({ name: 'wetland.png', mimeType: 'image/png', buffer: offlinePhoto });
      await fence.locator('.thumb img').waitFor();
      await page.locator('[data-practice="inlet-1"] label:has-text("In order")').click();
      await page.click('#inspect-form button[type="submit"]');
      await page.waitForSelector('#inspect-result.msg-warn');

      expect(await page.locator('#inspect-result').textContent()).toBe(
        'Saved on this phone, not yet sent — it will be sent when the connection returns.',
      );
      expect(await page.locator('#outbox-count').textContent()).toBe('1 inspection waiting to be sent');
      const item = page.locator('#outbox-list li');
      expect(await item.count()).toBe(1);
      expect(await item.textContent()).toContain('Waiting to be sent.');
      const clientId = (await item.getAttribute('data-client-id')) ?? '';
      expect(clientId).toMatch(/^[0-9a-f-]{36}$/);
      await screenshot(page, 'inspection-offline-phone');
      // Nothing at the gateway: neither the inspection nor its photo.
      expect(await inspections()).toHaveLength(1);
      expect((await photo(hex(offlinePhoto))).status).toBe(404);

      // Opened again without a connection: the inspection is on the phone, not in the page.
      await page.reload();
      await page.waitForSelector('#outbox-list li');
      expect(await page.locator('#outbox-list li').getAttribute('data-client-id')).toBe(clientId);
      expect(await page.locator('#outbox-count').textContent()).toBe('1 inspection waiting to be sent');
      expect(await inspections()).toHaveLength(1);
      // And a new inspection can be recorded there and then: the phone kept the sites and their practices.
      await page.waitForSelector('#field-mode:has-text("working from the copy kept on this phone")');
      expect(await page.locator('#i-submit').textContent()).toBe('Save on this phone');
      expect(await page.locator('#i-site option').allTextContents()).toEqual(['Maple Ridge']);
      await page.waitForSelector('[data-practice="fence-n"]');
      expect(await page.locator('#i-at-zone').textContent()).toContain(ZONE);
      await page.fill('#i-inspector', INSPECTOR.name);
      await page.selectOption('#i-kind', 'routine');
      await page.locator('[data-practice="fence-n"] label:has-text("In order")').click();
      await page.locator('[data-practice="inlet-1"] label:has-text("In order")').click();
      await page.click('#inspect-form button[type="submit"]');
      await page.waitForSelector('#outbox-count:has-text("2 inspections waiting to be sent")');
      expect(await inspections()).toHaveLength(1);
      // Back online: it is sent by itself, even when the first request after the connection returns fails
      // (as they often do on a phone): the outbox tries again soon, not only in a minute.
      let dropped = 0;
      await page.route('**/api/photos?*', (route) => {
        said.push(`${Date.now() % 100000} route ${dropped}`);
        return dropped++ === 0 ? route.abort('internetdisconnected') : route.continue();
      });
      said.push(`${Date.now() % 100000} online`);
      await ctx.setOffline(false);
      await page.waitForSelector('#inspect-result.msg-ok', { timeout: 15_000 }).catch((e: Error) => {
        throw new Error(`${e.message}\nthe page said: ${said.join('\n')}`);
      });
      // Back online (a report of a request made while offline may still arrive: `wentOffline`).
      offline = false;
      expect(dropped).toBeGreaterThanOrEqual(2);
      expect(await page.locator('#inspect-result').textContent()).toMatch(
        /^Sent: the inspection of Maple Ridge at \w{3} \d{1,2}, \d{4}, \d{1,2}:\d{2} [AP]M E[SD]T is recorded\./,
      );
      await page.waitForSelector('#outbox-count', { state: 'hidden' });
      expect(await page.locator('#outbox-list li').count()).toBe(0);
      await screenshot(page, 'inspection-sent-phone');

      const all = await inspections();
      expect(all).toHaveLength(3);
      expect(all.find((i) => i.kind === 'routine' && i.findings?.[0]?.status === 'ok')).toBeDefined();
      const sent = all.find((i) => i.kind === 'storm');
      // The original time: two hours ago in the site's zone, to the minute.
      expect(wallClock(Date.parse(sent?.at ?? ''), ZONE)).toBe(twoHoursAgo);
      expect(sent?.findings).toEqual([
        {
          practice: 'fence-n',
          status: 'violation',
          note: 'Sediment over the fence into the wetland.',
          photos: [hex(offlinePhoto)],
        },
        { practice: 'inlet-1', status: 'ok', note: '', photos: [] },
      ]);
      // Its own id: sent again under it, the gateway answers with the same inspection, not a second one.
      const resend = await api().call(
        'POST',
        '/api/inspections',
        {
          siteId: 'maple-ridge',
          at: sent?.at,
          inspector: INSPECTOR.name,
          kind: 'storm',
          findings: sent?.findings,
          clientId,
        },
        api().admin,
      );
      expect(resend.status).toBeLessThan(300);
      expect((resend.body.inspection as InspectionJson).id).toBe(sent?.id);
      await waitFor(async () => (await inspections()).length === 3, 2000, 'still three inspections');
      expect(errors).toEqual([]);
      expect(csp).toEqual([]);
      await page.close();
    });

    it('keeps a refused inspection with its reason in words, to fix in the form and record', async () => {
      const page = await openPage('#/inspect/maple-ridge');
      await page.waitForSelector('[data-practice="fence-n"]');
      // Six years ago: the gateway records inspections of the last five years only.
      const tooOld = wallClock(Date.now() - 6 * 365 * 24 * HOUR, ZONE);
      await page.fill('#i-at', tooOld);
      await page.locator('[data-practice="inlet-1"] label:has-text("In order")').click();
      // A practice without a finding: the form names it, and nothing is sent.
      await page.click('#inspect-form button[type="submit"]');
      await page.waitForSelector('#inspect-result.msg-bad');
      expect(await page.locator('#inspect-result').textContent()).toBe(
        'Mark what you found at every practice before recording the inspection. Not marked yet: Silt fence, north boundary.',
      );
      expect(await page.locator('#outbox-list li').count()).toBe(0);
      await page.locator('[data-practice="fence-n"] label:has-text("In order")').click();
      await page.click('#inspect-form button[type="submit"]');
      await page.waitForSelector('#inspect-result.msg-bad:has-text("Not recorded")');
      const said = (await page.locator('#inspect-result').textContent()) ?? '';
      expect(said).toMatch(/^Not recorded: The inspection was not recorded: check its time/);
      expect(said).not.toMatch(/BAD_|HTTP/);
      // Back in the form, as typed; and listed as refused, with the reason.
      expect(await page.inputValue('#i-at')).toBe(tooOld);
      expect(await page.locator('[data-practice="inlet-1"] input[value="ok"]').isChecked()).toBe(true);
      const item = page.locator('#outbox-list li');
      expect(await item.count()).toBe(1);
      expect(await item.textContent()).toContain('The gateway refused it: The inspection was not recorded');
      // Fixed: recorded, and nothing waits any more.
      const yesterday = wallClock(Date.now() - 24 * HOUR, ZONE);
      await page.fill('#i-at', yesterday);
      await page.click('#inspect-form button[type="submit"]');
      await page.waitForSelector('#inspect-result.msg-ok');
      await page.waitForSelector('#outbox-count', { state: 'hidden' });
      expect(await page.locator('#outbox-list li').count()).toBe(0);
      const fixed = (await inspections()).filter((i) => wallClock(Date.parse(i.at), ZONE) === yesterday);
      expect(fixed.map((i) => i.findings)).toEqual([
        [
          { practice: 'fence-n', status: 'ok', note: '', photos: [] },
          { practice: 'inlet-1', status: 'ok', note: '', photos: [] },
        ],
      ]);
      expect(errors.filter((e) => !/status of 400/.test(e))).toEqual([]);
      expect(csp).toEqual([]);
      await page.close();
    });
  },
);
