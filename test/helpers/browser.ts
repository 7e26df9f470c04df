import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { TEST_VIEWER_TOKEN } from './viewerFetch.ts';

/** Headless Chromium from the system (Debian's chromium package). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Screenshots kept as test artifacts (git-ignored): test-artifacts/screenshots/<name>.png, and a copy in SHOTS_DIR when set. */
export const SCREENSHOTS = join(import.meta.dirname, '../../test-artifacts/screenshots');

export async function screenshot(page: Page, name: string, fullPage = true): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage });
  const also = process.env.SHOTS_DIR;
  if (also) {
    mkdirSync(also, { recursive: true });
    copyFileSync(path, join(also, `${name}.png`));
  }
  return path;
}

/**
 * Reads need a sign-in or a token: the page reads as the test gateway's viewer, its token saved in the
 * tab as a pasted one (`gateway.token`) until the page saves another (a test pasting its own token).
 */
export async function asViewer(page: Page): Promise<Page> {
  await page.addInitScript(
    ([key, token]) => {
      if (!sessionStorage.getItem(key!)) sessionStorage.setItem(key!, token!);
    },
    ['gateway.token', TEST_VIEWER_TOKEN],
  );
  return page;
}

/** What a page logs as an error (console errors, uncaught exceptions) and what its CSP blocked, collected. */
export function watchPage(page: Page): { errors: string[]; csp: string[] } {
  const csp: string[] = [];
  const errors: string[] = [];
  watchCsp(page, csp);
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  return { errors, csp };
}

/** Collects what the Content-Security-Policy blocked on a page, into `into`. */
export function watchCsp(page: Page, into: string[]): void {
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) into.push(m.text());
  });
}

/** An alert as the API answers it, as far as the dashboard tests look. */
export interface AlertJson {
  id: string;
  rule: string;
  siteId: string;
  deviceId?: string;
  status: string;
  overdue: boolean;
  acknowledgedBy?: string;
  history: Array<{ action: string; actor: string; detail: Record<string, unknown> }>;
}
