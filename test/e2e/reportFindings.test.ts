/**
 * Each inspection's findings and photos in the compliance report, against a real gateway, in real
 * Chromium: an inspection at a construction site with a finding at each practice and a photo stored at
 * the gateway. The page lists the practice by its label, the finding in words, the note and the photo as
 * a thumbnail carried in the page (a `data:` image, under the gateway's CSP, with no console error), its
 * hash short under it; the CSV has a `finding` row with the photo's hash; the PDF Chromium prints shows
 * the photo (its colour is on the printed page, rendered by pdftoppm).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, SCREENSHOTS, screenshot, watchPage } from '../helpers/browser.ts';
import { haveBinary } from '../helpers/env.ts';
import { startTestGateway, type TestGateway, testConfigInput } from '../helpers/gateway.ts';
import { pdfPages, pixelsOf } from '../helpers/pdfPages.ts';
import { png, postPhoto } from '../helpers/photos.ts';
import { sha256 } from '../helpers/reports.ts';
import { VIEWER_HEADERS } from '../helpers/viewerFetch.ts';

const INSPECTOR = 'report-findings-inspector';
const insp = { authorization: `Bearer ${INSPECTOR}` };
const HOUR = 3_600_000;
/** The photo: a red the rest of the printed page never uses. */
const RED: [number, number, number] = [230, 20, 20];
const day = (ts: number) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' }).format(new Date(ts));

const canRun = haveBinary('chromium') && haveBinary('pdftoppm');

describe.skipIf(!canRun)("the report lists each inspection's findings and photos", () => {
  let gw: TestGateway;
  let browser: Browser;
  let query: string;
  let photo: string;
  const dir = mkdtempSync(join(tmpdir(), 'report-findings-'));

  beforeAll(async () => {
    const base = testConfigInput();
    gw = await startTestGateway({
      ...base,
      auth: {
        tokens: [{ name: 'Ida Inspector', role: 'inspector' as const, tokenSha256: sha256(INSPECTOR) }],
      },
      sites: base.sites!.map((s) =>
        s.id === 'maple-ridge'
          ? {
              ...s,
              practices: [
                { id: 'silt-n', label: 'Silt fence, north boundary', kind: 'silt-fence' as const },
                { id: 'inlet-1', label: 'Inlet protection, Elm St.', kind: 'inlet-protection' as const },
              ],
            }
          : s,
      ),
    });
    const stored = await postPhoto(gw.httpUrl, png(160, 120, RED), 'image/png', insp);
    expect(stored.status).toBe(200);
    photo = String(stored.body.sha256);
    const at = Date.now() - 2 * HOUR;
    const r = await fetch(`${gw.httpUrl}/api/inspections`, {
      method: 'POST',
      headers: { ...insp, 'content-type': 'application/json' },
      body: JSON.stringify({
        siteId: 'maple-ridge',
        at: new Date(at).toISOString(),
        kind: 'routine',
        inspector: 'Ida Inspector',
        notes: 'Weekly walk.',
        side: 'developer',
        findings: [
          { practice: 'silt-n', status: 'ok' },
          { practice: 'inlet-1', status: 'violation', note: 'Clogged with sediment', photos: [photo] },
        ],
      }),
    });
    expect(r.status).toBe(201);
    query = `siteId=maple-ridge&from=${day(at - 24 * HOUR)}&to=${day(Date.now())}`;
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await gw?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows the findings in words and the photo carried in the page, under its CSP', async () => {
    const page = await browser.newPage({
      viewport: { width: 1366, height: 900 },
      extraHTTPHeaders: VIEWER_HEADERS,
    });
    const { csp, errors } = watchPage(page);
    const res = await page.goto(`${gw.httpUrl}/api/reports/compliance?${query}&format=html`);
    expect(res?.status()).toBe(200);
    const findings = page.locator('table.findings');
    await expect.poll(() => findings.count()).toBe(1);
    const rows = await findings.locator('tbody tr').allInnerTexts();
    expect(rows[0]).toMatch(/^Silt fence, north boundary\s+In order\s+—\s+None$/);
    expect(rows[1]).toContain('Inlet protection, Elm St.');
    expect(rows[1]).toContain('Violation');
    expect(rows[1]).toContain('Clogged with sediment');
    expect(rows[1]).toContain(photo.slice(0, 12));
    const img = findings.locator('figure.photo img');
    expect(await img.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    expect(await img.getAttribute('title')).toBe(`SHA-256 ${photo}`);
    // Decoded and drawn at thumbnail size.
    const drawn = await img.evaluate((el: HTMLImageElement) => ({
      natural: el.naturalWidth,
      width: el.getBoundingClientRect().width,
    }));
    expect(drawn).toEqual({ natural: 160, width: 96 });
    await findings.scrollIntoViewIfNeeded();
    await screenshot(page, 'report-findings-desktop', false);
    expect(csp).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("lists a finding row in the CSV with its practice's label and the photo's hash", async () => {
    const csv = await (await fetch(`${gw.httpUrl}/api/reports/compliance?${query}&format=csv`)).text();
    const lines = csv.split('\r\n');
    expect(lines[0]).toMatch(/,inspection,practice,photos,signed by$/);
    const finding = lines.find((l) => l.startsWith('finding,') && l.includes('Violation'));
    expect(finding).toMatch(/,Violation,Clogged with sediment,,"Inlet protection, Elm St\.",[0-9a-f]{64},$/);
    expect(finding?.endsWith(`${photo},`)).toBe(true);
  });

  it('prints the photo in the PDF', async () => {
    const res = await fetch(`${gw.httpUrl}/api/reports/compliance?${query}&format=pdf`, {
      headers: VIEWER_HEADERS,
      signal: AbortSignal.timeout(150_000),
    });
    expect(res.status).toBe(200);
    const file = join(dir, 'report.pdf');
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    // The page with the most of the photo's red: at least most of a 96 px thumbnail's area (1 in at 100 dpi).
    const reds = pdfPages(file).map((p) => pixelsOf(p, (r, g, b) => r > 190 && g < 70 && b < 70));
    const best = { red: Math.max(...reds), page: reds.indexOf(Math.max(...reds)) + 1 };
    expect(best.red).toBeGreaterThan(5000);
    mkdirSync(SCREENSHOTS, { recursive: true });
    execFileSync('pdftoppm', [
      '-r',
      '100',
      '-png',
      '-singlefile',
      '-f',
      String(best.page),
      '-l',
      String(best.page),
      file,
      join(SCREENSHOTS, 'report-findings-pdf'),
    ]);
  }, 180_000);
});
