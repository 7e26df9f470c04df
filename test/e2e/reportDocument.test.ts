/**
 * The compliance report as a document, against a real gateway, in real Chromium: a storm of 0.6 in at a
 * construction site whose threshold is 0.4 in, certified by an inspector. The page loads its served
 * stylesheet with no console error and no CSP violation, its tables have borders, its storm chart draws
 * the threshold line at the site's 0.4 in, it names rules in words and says who generated it ("Public
 * copy" without signing in), it links the verifier page and its JSON, and it prints with a page break
 * before its storm section. format=pdf is a PDF whose first two pages carry the chart's threshold label,
 * "Page 1 of N" and the certification; a gateway whose Chromium is missing answers 501 in words.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import mqtt from 'mqtt';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RULE_IDS } from '../../gateway/src/rules/index.ts';
import { launchChromium, SCREENSHOTS, screenshot, watchPage } from '../helpers/browser.ts';
import { haveBinary, waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway, testConfigInput } from '../helpers/gateway.ts';
import { sha256 } from '../helpers/reports.ts';
import { VIEWER_HEADERS } from '../helpers/viewerFetch.ts';

const HOUR = 3_600_000;
const INSPECTOR = 'report-document-inspector';
const STATEMENT = 'I certify that these records are true and complete.';
/** The test's configuration: maple-ridge's storm threshold is 0.4 in, its gauge has a name. */
const config = (extra: Record<string, unknown> = {}) => {
  const base = testConfigInput();
  return {
    ...extra,
    auth: { tokens: [{ name: 'Ida Inspector', role: 'inspector' as const, tokenSha256: sha256(INSPECTOR) }] },
    sites: base.sites!.map((s) =>
      s.id === 'maple-ridge'
        ? {
            ...s,
            name: 'Maple Ridge subdivision',
            storm: { thresholdIn: 0.4 },
            devices: s.devices!.map((d) => (d.id === 'rg-1' ? { ...d, name: 'North gauge' } : d)),
          }
        : s,
    ),
  };
};
const day = (ts: number) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' }).format(new Date(ts));

const canRun = haveBinary('chromium') && haveBinary('pdftotext');

describe.skipIf(!canRun)('the compliance report as a document', () => {
  let gw: TestGateway;
  let browser: Browser;
  let query: string;

  beforeAll(async () => {
    gw = await startTestGateway(config());
    // 0.6 in over three hours, two days ago: a tip every three minutes.
    const t0 = Math.floor((Date.now() - 2 * 24 * HOUR) / HOUR) * HOUR;
    const c = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'maple-ridge/rg-1',
      username: 'maple-ridge/rg-1',
      password: 'pw-rg-1',
    });
    for (let i = 0; i <= 60; i++)
      await c.publishAsync(
        'sites/maple-ridge/devices/rg-1/telemetry',
        JSON.stringify({ ts: t0 + i * 180_000, seq: i, rainTips: i }),
        { qos: 1 },
      );
    await c.endAsync();
    await waitFor(
      async () => {
        const storms = (await (await fetch(`${gw.httpUrl}/api/storms?siteId=maple-ridge`)).json()) as Array<{
          qualified: boolean;
        }>;
        return storms.some((s) => s.qualified);
      },
      20_000,
      'the qualifying storm',
    );
    query = `siteId=maple-ridge&from=${day(t0 - 24 * HOUR)}&to=${day(Date.now())}`;
    const cert = await fetch(`${gw.httpUrl}/api/reports/compliance/certify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${INSPECTOR}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        siteId: 'maple-ridge',
        from: day(t0 - 24 * HOUR),
        to: day(Date.now()),
        statement: STATEMENT,
      }),
    });
    expect(cert.status).toBe(201);
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await gw?.cleanup();
  });

  it('opens in Chromium styled, with no console error or CSP violation, its chart at the threshold', async () => {
    const page = await browser.newPage({
      viewport: { width: 1200, height: 900 },
      extraHTTPHeaders: VIEWER_HEADERS,
    });
    const { csp, errors } = watchPage(page);
    const res = await page.goto(`${gw.httpUrl}/api/reports/compliance?${query}&format=html`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toMatch(/style-src 'self' 'nonce-/);
    await page.waitForLoadState('load');

    // The served stylesheet applies: bordered cells, the header's rule.
    const border = await page
      .locator('table td')
      .first()
      .evaluate((td) => getComputedStyle(td).borderTopStyle);
    expect(border).not.toBe('none');
    expect(await page.locator('link[rel=stylesheet]').getAttribute('href')).toMatch(/^\/report\.css/);

    // The storm's chart: its threshold line where its axis puts the site's 0.4 in.
    const chart = page.locator('svg.storm-chart');
    await expect.poll(() => chart.count()).toBe(1);
    const geometry = await chart.evaluate((svg) => {
      const line = svg.querySelector('line.threshold')!;
      return {
        threshold: Number(svg.getAttribute('data-threshold-in')),
        yMax: Number(svg.getAttribute('data-y-max')),
        top: Number(svg.getAttribute('data-plot-top')),
        bottom: Number(svg.getAttribute('data-plot-bottom')),
        y1: Number(line.getAttribute('y1')),
        y2: Number(line.getAttribute('y2')),
        crossingY: Number(svg.querySelector('circle.crossing')?.getAttribute('cy')),
        label: svg.querySelector('.threshold-label')?.textContent,
        rendered: svg.getBoundingClientRect().width,
      };
    });
    expect(geometry.threshold).toBe(0.4);
    expect(geometry.label).toBe('0.4 in threshold');
    expect(geometry.y1).toBe(geometry.y2);
    expect(geometry.y1).toBeCloseTo(
      geometry.bottom - (0.4 / geometry.yMax) * (geometry.bottom - geometry.top),
      0,
    );
    expect(geometry.crossingY).toBe(geometry.y1);
    expect(geometry.rendered).toBeGreaterThan(300);

    // Words for people: rule names, statuses, who generated it, the certification, how to verify.
    const text = (await page.locator('body').textContent()) ?? '';
    for (const id of RULE_IDS) expect(text, id).not.toContain(id);
    expect(text).not.toMatch(/\bon-time\b|not-required|unauthenticated/);
    // Read with the viewer's token: the report names who asked for it.
    expect(await page.locator('table.facts tr', { hasText: 'Generated by' }).textContent()).toContain(
      'Test viewer',
    );
    const cert = (await page.locator('section.certification').textContent()) ?? '';
    expect(cert).toContain(STATEMENT);
    expect(cert).toMatch(/Name\s*Ida Inspector/);
    expect(cert).toMatch(/Title\s*Inspector/);
    expect(text).toContain('Maple Ridge subdivision');
    expect(text).toContain('North gauge');
    expect(text).toMatch(/Verify this report offline: download the verifier page from/);
    const verify = await page.locator('.verify a', { hasText: 'verify.html' }).getAttribute('href');
    expect(verify).toBe(`${gw.httpUrl}/verify.html`);
    const json = await page.locator('.verify a', { hasText: 'as JSON' }).getAttribute('href');
    const data = (await (await fetch(json!)).json()) as { site: { id: string }; generatedBy: string };
    expect(data.site.id).toBe('maple-ridge');
    expect(data.generatedBy).toBe('Test viewer');
    expect(await page.locator('[style]').count()).toBe(0);
    await screenshot(page, 'report-desktop');

    // Printed: the storms follow the summary (their charts within the first pages), each chart kept whole.
    await page.emulateMedia({ media: 'print' });
    const breaks = await page.evaluate(() => ({
      storms: getComputedStyle(document.querySelector('section.storms')!).breakBefore,
      figure: getComputedStyle(document.querySelector('figure.storm')!).breakInside,
    }));
    expect(breaks).toEqual({ storms: 'auto', figure: 'avoid' });
    await screenshot(page, 'report-print');
    expect(csp).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('names who generated it when asked with a token', async () => {
    const res = await fetch(`${gw.httpUrl}/api/reports/compliance?${query}&format=html`, {
      headers: { authorization: `Bearer ${INSPECTOR}` },
    });
    const html = await res.text();
    expect(html).toMatch(/<th>Generated by<\/th><td>Ida Inspector<\/td>/);
    expect(html).not.toContain('Public copy');
  });

  it('serves its stylesheet, cached', async () => {
    const css = await fetch(`${gw.httpUrl}/report.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    expect(css.headers.get('cache-control')).toMatch(/max-age=\d+/);
    const text = await css.text();
    expect(text).toContain('counter(pages)');
    expect(text).toMatch(/@media print/);
    const again = await fetch(`${gw.httpUrl}/report.css`, {
      headers: { 'if-none-match': css.headers.get('etag')! },
    });
    expect(again.status).toBe(304);
  });

  it('prints to PDF: the threshold label, page numbers and the certification in its first two pages', async () => {
    const res = await fetch(`${gw.httpUrl}/api/reports/compliance?${query}&format=pdf`, {
      signal: AbortSignal.timeout(150_000),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toMatch(/filename="compliance-maple-ridge-.*\.pdf"/);
    const pdf = Buffer.from(await res.arrayBuffer());
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    // Kept beside the screenshots, as a test artifact.
    mkdirSync(join(SCREENSHOTS, '..'), { recursive: true });
    const file = join(SCREENSHOTS, '..', 'report.pdf');
    writeFileSync(file, pdf);
    const text = execFileSync('pdftotext', ['-f', '1', '-l', '2', file, '-'], { encoding: 'utf8' });
    expect(text).toContain('0.4 in threshold');
    expect(text).toMatch(/Page 1 of \d+/);
    expect(text).toMatch(/Page 2 of \d+/);
    expect(text).toContain('Maple Ridge subdivision (maple-ridge)');
    expect(text).toContain('Certification');
    expect(text).toContain(STATEMENT);
    expect(text).toContain('Ida Inspector');
  }, 180_000);

  it('documents format=pdf and its content type in the API document', async () => {
    const doc = (await (await fetch(`${gw.httpUrl}/docs/json`)).json()) as {
      paths: Record<string, { get?: { responses: Record<string, { content?: Record<string, unknown> }> } }>;
    };
    const ok = doc.paths['/api/reports/compliance']!.get!.responses['200']!;
    expect(Object.keys(ok.content ?? {})).toContain('application/pdf');
    expect(Object.keys(doc.paths)).not.toContain('/report.css');
  });
});

describe('format=pdf on a gateway without Chromium', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(config({ reports: { chromium: '/nonexistent/chromium' } }));
  });
  afterAll(async () => gw?.cleanup());

  it('answers 501 with the catalogue error, in words', async () => {
    const res = await fetch(`${gw.httpUrl}/api/reports/compliance?siteId=maple-ridge&format=pdf`);
    expect(res.status).toBe(501);
    expect(await res.json()).toEqual({
      error: 'PDF_UNAVAILABLE',
      message: 'PDF export needs Chromium on the gateway; the HTML report prints to PDF from any browser',
    });
    // The other forms are there.
    const html = await fetch(`${gw.httpUrl}/api/reports/compliance?siteId=maple-ridge&format=html`);
    expect(html.status).toBe(200);
  });

  it('answers a browser following the PDF link with a page in words that links the printable page', async () => {
    const accept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    const res = await fetch(`${gw.httpUrl}/api/reports/compliance?siteId=maple-ridge&format=pdf`, {
      headers: { accept },
    });
    expect(res.status).toBe(501);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await res.text();
    expect(page).toMatch(/<h1>The PDF could not be made<\/h1>/);
    expect(page).toMatch(/Chromium, the program that prints its pages to PDF, is not installed/);
    expect(page).not.toMatch(/PDF_UNAVAILABLE|501/);
    const link = /<a href="([^"]+)">open the printable page<\/a>/.exec(page)?.[1];
    expect(link).toBe('/api/reports/compliance?siteId=maple-ridge&amp;format=html');
    const printable = await fetch(`${gw.httpUrl}${link!.replaceAll('&amp;', '&')}`, { headers: { accept } });
    expect(printable.status).toBe(200);
    expect(printable.headers.get('content-type')).toMatch(/^text\/html/);
  });
});
