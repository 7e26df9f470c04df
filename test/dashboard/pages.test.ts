/**
 * Every page of the dashboard, at a desktop (1366x900) and a phone (390x844) size, signed in as an
 * administrator with a storm, an overdue duty and sediment on record: no console error, no uncaught error,
 * nothing the Content-Security-Policy blocked, no API code or field id in the words, and a screenshot of
 * each (test-artifacts/screenshots/page-<name>-<size>.png; SCREENSHOT_SUFFIX names a second set).
 */
import mqtt, { type MqttClient } from 'mqtt';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshot, watchCsp } from '../helpers/browser.ts';
import { haveBinary, waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { completeInspection } from '../helpers/inspections.ts';
import { PASSWORD, peopleApi, sha } from '../helpers/people.ts';

const ADMIN_TOKEN = 'pages-admin-token';
const HOUR = 3_600_000;
const SIZES = [
  { name: 'desktop', width: 1366, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;
/** Each page by its route, and what shows it has drawn. */
const PAGES = [
  { name: 'overview', hash: '#/overview', ready: '[data-site="maple-ridge"]' },
  { name: 'alerts', hash: '#/alerts', ready: '#view-alerts table, #view-alerts .empty' },
  { name: 'storms', hash: '#/storms', ready: '#view-storms' },
  { name: 'site', hash: '#/site/maple-ridge', ready: '#view-site h2' },
  { name: 'inspect', hash: '#/inspect', ready: '#view-inspect form' },
  { name: 'agenda', hash: '#/agenda', ready: '#agenda-list .agenda-day' },
  { name: 'people', hash: '#/people', ready: '#people-list table' },
  { name: 'manage', hash: '#/manage', ready: '#manage-list table' },
  { name: 'devices', hash: '#/devices/maple-ridge', ready: '#devices-list table' },
  { name: 'changes', hash: '#/changes', ready: '#view-changes' },
  { name: 'quarantine', hash: '#/quarantine', ready: '#view-quarantine' },
  { name: 'tokens', hash: '#/tokens', ready: '#view-tokens form' },
] as const;
/** Words a clerk should never read: API error codes, raw values, JSON. */
const RAW = /\b(undefined|NaN|null|BAD_[A-Z_]+|NOT_FOUND|FORBIDDEN|confirmActive)\b|\[object Object\]|\{"/;
const suffix = process.env.SCREENSHOT_SUFFIX ?? '';

describe.skipIf(!haveBinary('chromium'))('every dashboard page, desktop and phone', () => {
  let gw: TestGateway;
  let browser: Browser;
  const clients: MqttClient[] = [];

  async function publish(deviceId: string, points: Array<[number, Record<string, number>]>) {
    const c = mqtt.connect(gw.mqttUrl, {
      clientId: `maple-ridge/${deviceId}`,
      username: `maple-ridge/${deviceId}`,
      password: `pw-${deviceId}`,
      reconnectPeriod: 0,
    });
    await new Promise<void>((resolve, reject) => {
      c.once('connect', () => resolve());
      c.once('error', reject);
    });
    clients.push(c);
    let seq = 0;
    for (const [ts, values] of points)
      await c.publishAsync(
        `sites/maple-ridge/devices/${deviceId}/telemetry`,
        JSON.stringify({ ts, seq: ++seq, ...values }),
        { qos: 1 },
      );
  }

  beforeAll(async () => {
    gw = await startTestGateway({
      auth: { tokens: [{ name: 'Ada Admin', role: 'admin', tokenSha256: sha(ADMIN_TOKEN) }] },
    });
    const now = Date.now();
    // A storm two days ago, never inspected (overdue), and one within the hour (due).
    await publish('rg-2', [
      [now - 50 * HOUR, { rainTips: 0 }],
      [now - 49 * HOUR, { rainTips: 30 }],
      [now - 48.5 * HOUR, { rainTips: 60 }],
    ]);
    await publish('rg-1', [
      [now - 30 * HOUR, { rainTips: 0 }],
      [now - 0.8 * HOUR, { rainTips: 8 }],
      [now - 0.3 * HOUR, { rainTips: 63 }],
    ]);
    await publish(
      'trap-1',
      Array.from({ length: 48 }, (_, i) => [
        now - (48 - i) * HOUR,
        { sedimentIn: 4 + i * 0.05, levelIn: 10 },
      ]),
    );
    // The overdue storm was inspected while it still rained: shown with it, it met nothing.
    const mid = await fetch(`${gw.httpUrl}/api/inspections`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(
        completeInspection({
          siteId: 'maple-ridge',
          at: new Date(now - 48.75 * HOUR).toISOString(),
          inspector: 'Ada Admin',
          kind: 'storm' as const,
        }),
      ),
    });
    expect(mid.status).toBe(201);
    const people = peopleApi(gw.httpUrl, ADMIN_TOKEN);
    await people.account('Pat Officer', 'pat@town.example', 'admin');
    await waitFor(
      async () => {
        const res = await fetch(`${gw.httpUrl}/api/alerts?siteId=maple-ridge`);
        const alerts = (await res.json()) as Array<{ overdue: boolean }>;
        return alerts.some((a) => a.overdue);
      },
      10_000,
      'the overdue storm inspection',
    );
    browser = await launchChromium();
  });

  afterAll(async () => {
    for (const c of clients) c.end(true);
    await browser?.close();
    await gw?.cleanup();
  });

  async function signedIn(width: number, height: number): Promise<{ page: Page; problems: string[] }> {
    const page = await browser.newPage({ viewport: { width, height }, timezoneId: 'America/Chicago' });
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
    watchCsp(page, problems);
    await page.goto(`${gw.httpUrl}/#/signin`);
    await page.fill('#signin-email', 'pat@town.example');
    await page.fill('#signin-password', PASSWORD);
    await page.click('#signin-form button[type="submit"]');
    await page.waitForFunction(() => location.hash === '#/overview');
    return { page, problems };
  }

  for (const size of SIZES)
    it(`draws every page at ${size.width}x${size.height} with no error and no raw words`, async () => {
      const { page, problems } = await signedIn(size.width, size.height);
      for (const p of PAGES) {
        await page.evaluate((hash) => {
          location.hash = hash;
        }, p.hash);
        await page.locator(p.ready).first().waitFor({ state: 'attached', timeout: 10_000 });
        await page.waitForLoadState('networkidle');
        // What is rendered (a closed <details> with the raw record is not): innerText, not textContent.
        // biome-ignore lint/performance/useDomNodeTextContent: the words on screen are the point
        const words = await page.locator(`#view-${p.name}`).innerText();
        const raw = RAW.exec(words);
        if (raw) problems.push(`${p.name}: "${words.slice(Math.max(0, raw.index - 40), raw.index + 40)}"`);
        if (p.name === 'storms') expect(words).toContain('Inspected during the storm');
        await screenshot(page, `page-${p.name}-${size.name}${suffix}`);
      }
      expect(problems).toEqual([]);
      // The page fits the phone: nothing wider than the viewport makes the whole page scroll sideways.
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await page.close();
    });
});
