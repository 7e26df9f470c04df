/**
 * GET /verify.html from a running gateway: the offline verifier, answered with its own
 * Content-Security-Policy (its inline script and style by their SHA-256, no connection, no framing) in
 * place of the gateway's, the same policy as the page's <meta> one; in real Chromium it loads and
 * checks a report of that gateway without a CSP violation or a console error.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, watchCsp } from '../../helpers/browser.ts';
import { haveBinary } from '../../helpers/env.ts';
import type { TestGateway } from '../../helpers/gateway.ts';
import { type RealReport, reportFrom, reportGateway } from '../../helpers/verifiedReport.ts';

const hashOf = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
const between = (html: string, open: string, close: string) => {
  const from = html.indexOf(open) + open.length;
  return html.slice(from, html.indexOf(close, from));
};

describe('GET /verify.html', () => {
  let gw: TestGateway;
  let real: RealReport;
  let dir: string;
  beforeAll(async () => {
    gw = await reportGateway();
    real = await reportFrom(gw);
    dir = mkdtempSync(join(tmpdir(), 'verify-served-'));
  }, 60_000);
  afterAll(async () => {
    await gw?.cleanup();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers the page with its own policy: its script and style by hash, no connection, no framing', async () => {
    const res = await fetch(`${gw.httpUrl}/verify.html`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    const csp = res.headers.get('content-security-policy') ?? '';
    const script = between(html, '<script>', '</script>');
    const style = between(html, '<style>', '</style>');
    expect(script.length).toBeGreaterThan(10_000);
    expect(csp).toContain(`script-src ${hashOf(script)}`);
    expect(csp).toContain(`style-src ${hashOf(style)}`);
    expect(csp).toContain("connect-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/'self'|unsafe/);
    // The page says the same in its <meta> element, for when it is opened from a file.
    const meta = between(html, '<meta http-equiv="Content-Security-Policy" content="', '">').replace(
      /&#39;|&quot;/g,
      "'",
    );
    expect(`${meta}; frame-ancestors 'none'`).toBe(csp);
    // The rest of the gateway keeps its own policy.
    const other = await fetch(`${gw.httpUrl}/index.html`);
    expect(other.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
  });

  it.skipIf(!haveBinary('chromium'))(
    'loads in Chromium without a CSP violation and verifies a report of this gateway',
    async () => {
      let browser: Browser | undefined;
      try {
        browser = await launchChromium();
        const page = await browser.newPage();
        const blocked: string[] = [];
        const errors: string[] = [];
        watchCsp(page, blocked);
        page.on('console', (m) => {
          if (m.type() === 'error') errors.push(m.text());
        });
        page.on('pageerror', (e) => errors.push(e.message));
        await page.goto(`${gw.httpUrl}/verify.html`);
        const file = join(dir, 'report.json');
        writeFileSync(file, real.text);
        await page.fill('#key', real.key);
        await page.setInputFiles('#file', file);
        await page.click('button[type=submit]');
        await page.waitForSelector('#verdict.ok, #verdict.bad');
        expect(await page.textContent('#verdict strong')).toBe('Verified');
        expect(blocked).toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        await browser?.close();
      }
    },
  );
});
