/**
 * The inspection record in the dashboard (real gateway, real Chromium at 1366x900 and 390x844): a site's
 * inspections listed newest first on its page and filtered by kind and by whose they are (GET
 * /api/inspections?kind=&side=), and one inspection's page (GET /api/inspections/{id}): its findings per
 * practice in words with their notes, its photos as thumbnails that open full size, who recorded it, when
 * it was done and received, whose it is, whether it covered every practice, and its evidence log entry.
 * No console error, no id but the log entry's number.
 */
import { createHash } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asViewer, launchChromium, screenshot } from '../helpers/browser.ts';
import { haveBinary } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { PNG_1X1, postPhoto } from '../helpers/photos.ts';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const T0 = Date.parse('2026-06-10T14:00:00Z');
const HOUR = 3_600_000;
const insp = { authorization: 'Bearer tok-insp' };
const json = { ...insp, 'content-type': 'application/json' };
const RAW = /insp-|silt-north|inlet-1|\bundefined\b|\bnull\b|NOT_FOUND|\{"/;

interface InspectionJson {
  id: string;
  kind: string;
  side: string;
  at: string;
  logIndex?: number;
}

describe.skipIf(!haveBinary('chromium'))(
  "the inspection record: a site's list and one inspection's page",
  () => {
    let gw: TestGateway;
    let browser: Browser;
    let photo: string;
    const ids: Record<string, string> = {};

    const record = async (name: string, body: Record<string, unknown>) => {
      const r = await fetch(`${gw.httpUrl}/api/inspections`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ siteId: 'maple-ridge', inspector: 'Ian Inspector', ...body }),
      });
      expect(`${name} ${r.status} ${r.status === 201 ? '' : await r.clone().text()}`).toBe(`${name} 201 `);
      ids[name] = ((await r.json()) as { inspection: { id: string } }).inspection.id;
    };

    beforeAll(async () => {
      gw = await startTestGateway(
        {
          sites: [
            {
              id: 'maple-ridge',
              name: 'Maple Ridge',
              kind: 'construction',
              timezone: 'America/New_York',
              practices: [
                { id: 'silt-north', label: 'Silt fence, north boundary', kind: 'silt-fence' },
                { id: 'inlet-1', label: 'Inlet protection, Elm St.', kind: 'inlet-protection' },
              ],
              devices: [],
            },
          ],
          auth: { tokens: [{ name: 'Ian Inspector', role: 'inspector', tokenSha256: sha('tok-insp') }] },
        },
        { now: () => T0 },
      );
      photo = String((await postPhoto(gw.httpUrl, PNG_1X1, 'image/png', insp)).body.sha256);
      await record('oldest', {
        at: new Date(T0 - 72 * HOUR).toISOString(),
        kind: 'routine',
        side: 'developer',
        notes: 'First walk.',
        findings: [{ practice: 'inlet-1', status: 'ok' }],
      });
      await record('full', {
        at: new Date(T0 - 24 * HOUR).toISOString(),
        kind: 'routine',
        side: 'developer',
        notes: 'Weekly walk.',
        findings: [
          { practice: 'silt-north', status: 'ok' },
          { practice: 'inlet-1', status: 'violation', note: 'Clogged with sediment', photos: [photo] },
        ],
      });
      await record('town', {
        at: new Date(T0 - 2 * HOUR).toISOString(),
        kind: 'storm',
        side: 'town',
        findings: [{ practice: 'silt-north', status: 'maintenance', note: 'Sagging at the gate' }],
      });
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
      await gw?.cleanup();
    });

    const list = async (query: string) => {
      const r = await fetch(`${gw.httpUrl}/api/inspections?siteId=maple-ridge${query}`);
      expect(r.status).toBe(200);
      return (await r.json()) as InspectionJson[];
    };

    it('lists them newest first, by kind and by whose, and answers one by its id', async () => {
      expect((await list('')).map((i) => i.id)).toEqual([ids.town, ids.full, ids.oldest]);
      expect((await list('&kind=storm')).map((i) => i.id)).toEqual([ids.town]);
      expect((await list('&kind=routine')).map((i) => i.id)).toEqual([ids.full, ids.oldest]);
      expect((await list('&side=town')).map((i) => i.id)).toEqual([ids.town]);
      expect((await list('&side=developer&kind=storm')).map((i) => i.id)).toEqual([]);
      expect((await fetch(`${gw.httpUrl}/api/inspections?siteId=maple-ridge&side=neighbour`)).status).toBe(
        400,
      );
      const one = await fetch(`${gw.httpUrl}/api/inspections/${ids.full}`);
      expect(one.status).toBe(200);
      const body = (await one.json()) as InspectionJson & { findings: Array<{ photos: string[] }> };
      expect(body.id).toBe(ids.full);
      expect(body.findings[1]?.photos).toEqual([photo]);
      expect((await fetch(`${gw.httpUrl}/api/inspections/insp-nothing`)).status).toBe(404);
    });

    for (const [name, viewport] of [
      ['desktop', { width: 1366, height: 900 }],
      ['phone', { width: 390, height: 844 }],
    ] as const)
      it(`shows the list and one inspection's page on the ${name}`, async () => {
        const page: Page = await asViewer(await browser.newPage({ viewport, timezoneId: 'America/Chicago' }));
        const problems: string[] = [];
        page.on('console', (m) => {
          if (m.type() === 'error') problems.push(m.text());
        });
        page.on('pageerror', (e) => problems.push(String(e)));
        await page.goto(`${gw.httpUrl}/#/sites/maple-ridge`);
        const rows = page.locator('#insp-table tbody tr');
        await page.waitForFunction(() => document.querySelectorAll('#insp-table tbody tr').length === 3);
        expect(await rows.evaluateAll((r) => r.map((x) => x.getAttribute('data-inspection')))).toEqual([
          ids.town,
          ids.full,
          ids.oldest,
        ]);
        const first = (await rows.first().textContent()) ?? '';
        expect(first).toContain('Inspection after a storm');
        expect(first).toContain('Town inspection');
        expect(first).toMatch(/E[SD]T/);
        expect(await rows.nth(1).textContent()).toContain('Every practice (2 of 2 practices)');
        expect(await rows.first().textContent()).toContain('1 of 2 practices: not every practice');

        await page.selectOption('#insp-side', 'developer');
        await page.waitForFunction(() => document.querySelectorAll('#insp-table tbody tr').length === 2);
        await page.selectOption('#insp-kind', 'storm');
        await page.waitForFunction(() => document.querySelectorAll('#insp-table tbody tr').length === 0);
        expect(await page.locator('#insp-status').textContent()).toBe(
          'No inspection of this kind on record.',
        );
        await page.selectOption('#insp-kind', '');
        await page.waitForFunction(() => document.querySelectorAll('#insp-table tbody tr').length === 2);
        await page.locator('#site-inspections').scrollIntoViewIfNeeded();
        await screenshot(page, `inspections-list-${name}`, false);
        expect(RAW.exec((await page.locator('#site-inspections').textContent()) ?? '')?.[0]).toBeUndefined();

        await page.locator(`#insp-table tr[data-inspection="${ids.full}"] a`).click();
        await page.waitForSelector('#view-inspection:not([hidden]) #inspection-findings tbody tr');
        expect(await page.locator('#inspection-title').textContent()).toBe(
          'Routine inspection at Maple Ridge',
        );
        const facts = (await page.locator('#inspection-facts').textContent()) ?? '';
        const logIndex = (await list('')).find((i) => i.id === ids.full)?.logIndex;
        expect(logIndex).toBeTypeOf('number');
        expect(facts).toMatch(new RegExp(`Evidence log entry\\s*No\\. ${logIndex}$`));
        expect(facts).toContain('Recorded by');
        expect(facts).toContain('Ian Inspector');
        expect(facts).toContain("Developer's inspection");
        expect(facts).toContain('Every practice (2 of 2 practices)');
        // Done the day before at 10 AM in the site's zone; received at the gateway's clock, 10 AM that day.
        expect(facts).toMatch(/Done.*Jun 9, 2026.*10:00.*EDT/);
        expect(facts).toMatch(/Received by the gateway.*Jun 10, 2026.*10:00.*EDT/);
        const findings = page.locator('#inspection-findings tbody tr');
        expect(await findings.count()).toBe(2);
        expect(await findings.nth(0).textContent()).toContain('Silt fence, north boundary');
        expect(await findings.nth(0).textContent()).toContain('In order');
        const bad = (await findings.nth(1).textContent()) ?? '';
        expect(bad).toContain('Inlet protection, Elm St.');
        expect(bad).toContain('Violation');
        expect(bad).toContain('Clogged with sediment');
        expect(await page.locator('#inspection-notes').textContent()).toBe('Weekly walk.');
        const thumb = page.locator('#inspection-findings .photo-thumb img');
        await thumb.waitFor();
        await page.waitForFunction(() => {
          const img = document.querySelector<HTMLImageElement>('#inspection-findings .photo-thumb img');
          return img?.complete && img.naturalWidth > 0;
        });
        const text = (await page.locator('#view-inspection').textContent()) ?? '';
        expect(RAW.exec(text)?.[0]).toBeUndefined();
        await screenshot(page, `inspection-page-${name}`);
        await page.locator('#inspection-findings .photo-thumb').click();
        await page.waitForSelector('dialog.photo-full[open] img');
        expect(
          await page.locator('dialog.photo-full img').evaluate((i) => (i as HTMLImageElement).naturalWidth),
        ).toBe(1);
        await screenshot(page, `inspection-photo-${name}`, false);
        await page.keyboard.press('Escape');
        await page.waitForSelector('dialog.photo-full', { state: 'detached' });
        // The back link returns to the site's page.
        await page.locator('#inspection-back').click();
        await page.waitForSelector('#view-site:not([hidden])');
        // An inspection not on record: words, no code.
        await page.goto(`${gw.httpUrl}/#/inspections/insp-nothing`);
        await page.waitForSelector('#inspection-body [role="alert"]');
        const gone = (await page.locator('#inspection-body').textContent()) ?? '';
        expect(gone).toMatch(/^This inspection cannot be shown: /);
        expect(gone).not.toMatch(/NOT_FOUND|HTTP_/);
        // A 404 read by the page is reported by the browser itself; nothing else.
        expect(problems.filter((p) => !/404/.test(p))).toEqual([]);
        await page.close();
      });
  },
);
