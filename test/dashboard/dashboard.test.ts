import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import mqtt, { type MqttClient } from 'mqtt';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReportJson, verifyReport } from '../../gateway/src/verifier/verify.ts';
import {
  type AlertJson,
  asViewer,
  launchChromium,
  screenshot,
  watchCsp as watchCspInto,
} from '../helpers/browser.ts';
import { haveBinary, waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway, testHash } from '../helpers/gateway.ts';

const TOKEN = 'dashboard-inspector-token';
const VIEWER = { name: 'Vic Viewer', email: 'vic@town.example', password: 'a long viewer password' };
const MIN = 60_000;
const HOUR = 60 * MIN;

const hasChromium = haveBinary('chromium');

describe.skipIf(!hasChromium)('dashboard in a real browser', () => {
  let gw: TestGateway;
  let browser: Browser;
  let page: Page;
  const clients: MqttClient[] = [];
  const seq = new Map<string, number>();
  const pageErrors: string[] = [];
  /** Anything the Content-Security-Policy blocked, on any page of the run. */
  const cspViolations: string[] = [];
  const watchCsp = (p: Page) => watchCspInto(p, cspViolations);

  async function device(deviceId: string): Promise<MqttClient> {
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
    return c;
  }

  async function publish(c: MqttClient, deviceId: string, ts: number, values: Record<string, number>) {
    const n = (seq.get(deviceId) ?? 0) + 1;
    seq.set(deviceId, n);
    await c.publishAsync(
      `sites/maple-ridge/devices/${deviceId}/telemetry`,
      JSON.stringify({ ts, seq: n, ...values }),
      { qos: 1 },
    );
  }

  async function api<T>(path: string): Promise<T> {
    const res = await fetch(`${gw.httpUrl}${path}`);
    expect(res.status).toBe(200);
    return (await res.json()) as T;
  }

  const stormAlerts = (deviceId: string) =>
    api<AlertJson[]>('/api/alerts?siteId=maple-ridge&rule=storm-inspection').then((as) =>
      as.filter((a) => a.deviceId === deviceId),
    );

  beforeAll(async () => {
    gw = await startTestGateway({
      auth: {
        // Reads need a sign-in: the page signs in as a viewer (its report links need the session).
        users: [
          { name: VIEWER.name, email: VIEWER.email, role: 'viewer', passwordHash: testHash(VIEWER.password) },
        ],
        tokens: [
          { name: 'Insp', role: 'inspector', tokenSha256: createHash('sha256').update(TOKEN).digest('hex') },
        ],
      },
    });
    const now = Date.now();
    const rg1 = await device('rg-1');
    const rg2 = await device('rg-2');
    const trap = await device('trap-1');
    // rg-2: a storm two days ago, never inspected: overdue on arrival.
    await publish(rg2, 'rg-2', now - 50 * HOUR, { rainTips: 0 });
    await publish(rg2, 'rg-2', now - 49 * HOUR, { rainTips: 30 });
    await publish(rg2, 'rg-2', now - 48.5 * HOUR, { rainTips: 60 });
    // rg-1: a baseline, a light shower yesterday, then 55 tips within the hour: an open storm inspection.
    await publish(rg1, 'rg-1', now - 30 * HOUR, { rainTips: 0 });
    await publish(rg1, 'rg-1', now - 26 * HOUR, { rainTips: 8 });
    await publish(rg1, 'rg-1', now - 50 * MIN, { rainTips: 8 });
    await publish(rg1, 'rg-1', now - 40 * MIN, { rainTips: 30 });
    await publish(rg1, 'rg-1', now - 20 * MIN, { rainTips: 63 });
    // trap-1: hourly, sediment building up over three days (still below half the design depth), with a
    // ten-hour gap in the middle.
    for (let i = 0; i <= 70; i++)
      if (i < 30 || i > 40)
        await publish(trap, 'trap-1', now - (70 - i) * HOUR - 5 * MIN, {
          sedimentIn: Math.round((4 + i * 0.1) * 10) / 10,
          levelIn: 10 + (i % 6),
        });
    await waitFor(async () => (await stormAlerts('rg-1')).length === 1, 10_000, 'the rg-1 storm alert');
    await waitFor(
      async () => (await stormAlerts('rg-2')).some((a) => a.overdue),
      10_000,
      'the overdue rg-2 alert',
    );

    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 }, timezoneId: 'America/Chicago' });
    await page.goto(gw.httpUrl);
    await page.waitForURL(/#\/signin$/);
    await page.fill('#signin-email', VIEWER.email);
    await page.fill('#signin-password', VIEWER.password);
    await page.click('#signin-form button[type="submit"]');
    await page.waitForSelector('#who-name');
    page.on('pageerror', (e) => pageErrors.push(e.message));
    watchCsp(page);
  });

  afterAll(async () => {
    for (const c of clients) c.end(true);
    await browser?.close();
    await gw?.cleanup();
  });

  it('shows every site with its overdue duties first, and the live indicator', async () => {
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await page.goto(gw.httpUrl);
    const card = page.locator('[data-site="maple-ridge"]');
    await card.locator('[data-rule="storm-inspection"]').first().waitFor();
    await page.waitForSelector('#live[data-state="live"]');
    expect(await page.locator('#live-text').textContent()).toBe('Live');
    // Both sites are shown; the one with overdue duties comes first and is marked.
    const sites = await page
      .locator('[data-site]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-site')));
    expect(sites).toEqual(['maple-ridge', 'oak-lane']);
    await expect(card.getAttribute('class')).resolves.toContain('card-overdue');
    const duties = card.locator('.duty');
    const first = duties.first();
    expect(await first.getAttribute('class')).toContain('duty-overdue');
    expect(await first.textContent()).toMatch(/OVERDUE/);
    expect(await first.textContent()).toMatch(/\(1 d( \d+ h)? overdue\)/);
    const open = card.locator('.duty[data-rule="storm-inspection"]:not(.duty-overdue)');
    await expect(open.count()).resolves.toBe(1);
    // Due in the site's zone (America/New_York), not the browser's (America/Chicago), relative "in 23 h".
    expect(await open.textContent()).toMatch(/E[SD]T/);
    expect(await open.textContent()).toMatch(/\(in 2\d h( \d+ min)?\)/);
    expect(await card.textContent()).toMatch(/\d+ overdue/);
    // Devices: rg-1 reported minutes ago; oak-lane's panel never did and is shown as a gap.
    const panel = page.locator('[data-site="oak-lane"] [data-device="panel-1"]');
    expect(await panel.getAttribute('class')).toContain('device-gap');
    expect(await panel.textContent()).toContain('no data yet');
    expect(await card.locator('[data-device="rg-1"]').textContent()).toMatch(/last reading \d+ min ago/);
    await screenshot(page, 'dashboard-overview');
    expect(errors).toEqual([]);
  });

  it('acknowledges through the UI with the token, and refuses to resolve without a note', async () => {
    const [alert] = await stormAlerts('rg-1');
    expect(alert?.status).toBe('open');
    await page.click('.token-box summary');
    await page.fill('#token', TOKEN);
    await page.click('#token-form button[type="submit"]');
    await page.waitForSelector('#token-state:has-text("Token checked and saved")');
    expect(await page.locator('#who').textContent()).toContain('Insp');
    expect(page.url()).not.toContain(TOKEN);
    expect(await page.evaluate(() => Object.values(sessionStorage))).toContain(TOKEN);

    // Saving the token reloads the page's data and draws the overview again; a click whose press and
    // release straddle that redraw reaches no button (a person would click again). Clicked until the
    // dialog opens, each try given a second.
    const dialog = page.locator('#alert-dialog');
    for (let i = 0; i < 10 && !(await dialog.isVisible()); i++) {
      await page.click(`[data-alert="${alert!.id}"] button.duty-rule`);
      await dialog.waitFor({ timeout: 1000 }).catch((e: Error) => e);
    }
    await dialog.waitFor();
    await page.waitForSelector('#alert-body li[data-action="raised"]');
    expect(await dialog.textContent()).toContain('Evidence');

    await page.click('#resolve-form button[type="submit"]');
    await expect(page.locator('#dialog-error').textContent()).resolves.toMatch(/note is required/i);
    expect(await page.locator('#dialog-error').isVisible()).toBe(true);
    expect(await page.locator('#resolve-note').getAttribute('aria-invalid')).toBe('true');
    expect((await stormAlerts('rg-1'))[0]?.status).toBe('open');

    await page.fill('#ack-note', 'seen from the dashboard');
    await page.click('#ack-form button[type="submit"]');
    await page.waitForSelector('#dialog-ok:has-text("Acknowledged")');
    const after = (await stormAlerts('rg-1'))[0]!;
    expect(after.status).toBe('acknowledged');
    expect(after.acknowledgedBy).toBe('Insp');
    await page.waitForSelector('#alert-body li[data-action="acknowledged"]');
    expect(await page.locator('#alert-title').textContent()).toContain('acknowledged');

    // The 24-hour storm inspection is the law's: no engineer's letter moves it, so Extend is not offered.
    expect(await page.locator('#extend-form').count()).toBe(0);
    await screenshot(page, 'dashboard-alert-dialog', false);
    await page.click('#alert-close');
    // The overview reflects the acknowledgement.
    await page.waitForSelector(`[data-alert="${alert!.id}"] .badge-info:has-text("acknowledged")`);
  });

  it('shows a new alert live, without reloading the page', async () => {
    await page.evaluate(() => {
      (window as unknown as { marker: number }).marker = 42;
    });
    const before = await page
      .locator('[data-site="maple-ridge"] .duty[data-rule="storm-inspection"]')
      .count();
    const rg2 = clients[1]!;
    const now = Date.now();
    await publish(rg2, 'rg-2', now - 15 * MIN, { rainTips: 60 });
    await publish(rg2, 'rg-2', now - 5 * MIN, { rainTips: 115 });
    await page.waitForFunction(
      (n) =>
        document.querySelectorAll('[data-site="maple-ridge"] .duty[data-rule="storm-inspection"]').length ===
        n,
      before + 1,
      { timeout: 10_000 },
    );
    await page.waitForSelector('.toast:has-text("New alert: Storm inspection")');
    expect(await page.evaluate(() => (window as unknown as { marker: number }).marker)).toBe(42);
    expect((await stormAlerts('rg-2')).length).toBe(2);
  });

  it('lists alerts with filters, storms, and a site with its charts and reports', async () => {
    // The list of every alert answers late, after the filter was chosen and answered: it is not shown
    // over the filtered one.
    const unfiltered = (u: URL) => u.pathname === '/api/alerts' && !u.searchParams.has('rule');
    let release = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    await page.route(unfiltered, async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${gw.httpUrl}/#/alerts`);
    await page.waitForSelector('#f-rule option[value="storm-inspection"]', { state: 'attached' });
    await page.selectOption('#f-rule', 'storm-inspection');
    await page.waitForFunction(() =>
      /3 alerts/.test(document.querySelector('#alerts-status')?.textContent ?? ''),
    );
    const late = page.waitForResponse((r) => unfiltered(new URL(r.url())));
    release();
    await late;
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 50))));
    await page.unroute(unfiltered);
    expect(await page.textContent('#alerts-status')).toMatch(/^3 alerts/);
    expect(await page.locator('#alerts-body tr[data-alert]').count()).toBe(3);
    expect(await page.locator('#alerts-body tr.row-overdue').count()).toBe(1);
    await page.selectOption('#f-status', 'acknowledged');
    await page.waitForFunction(() =>
      /^1 alert,/.test(document.querySelector('#alerts-status')?.textContent ?? ''),
    );
    await page.selectOption('#f-status', '');
    await page.waitForFunction(() =>
      /3 alerts/.test(document.querySelector('#alerts-status')?.textContent ?? ''),
    );
    await screenshot(page, 'dashboard-alerts');

    await page.click('nav.tabs a[href="#/storms"]');
    await page.waitForSelector('#storms-list [data-storm]');
    const storms = page.locator('#storms-list [data-storm]');
    expect(await storms.count()).toBeGreaterThanOrEqual(3);
    const text = await page.locator('#storms-list').textContent();
    expect(text).toMatch(/0\.55\sin/);
    expect(text).toContain('55 tips');
    expect(text).toMatch(/0\.60\sin/);
    expect(text).toMatch(/missing/);
    expect(text).toMatch(/pending/);
    await screenshot(page, 'dashboard-storms');

    await page.goto(`${gw.httpUrl}/#/site/maple-ridge`);
    await page.waitForSelector('[data-device="rg-1"] [data-panel="rg-1/rain"][data-guides]');
    await page.waitForSelector('[data-device="trap-1"] [data-panel="trap-1/sediment"][data-guides]');
    expect(await page.locator('[data-device="trap-1"] [data-field="sedimentIn"]').textContent()).toContain(
      '11 in',
    );
    const guides = JSON.parse(
      (await page
        .locator('[data-device="trap-1"] [data-panel="trap-1/sediment"]')
        .getAttribute('data-guides')) ?? '{}',
    ) as { bands: Array<{ kind: string }> };
    expect(guides.bands.filter((b) => b.kind === 'gap').length).toBeGreaterThanOrEqual(1);
    expect(
      await page
        .locator('[data-device="trap-1"] [data-panel="trap-1/sediment"] .chart-summary')
        .textContent(),
    ).toMatch(/gaps? without data|gap in the evidence/);
    expect(
      await page.locator('[data-device="rg-1"] [data-panel="rg-1/rain"] .chart-summary').textContent(),
    ).toMatch(/Rain in this period: 0\.63 in/);
    const html = await page.locator('#site-reports a:has-text("Printable report")').getAttribute('href');
    const csv = await page.locator('#site-reports a:has-text("Spreadsheet (CSV)")').getAttribute('href');
    expect(html).toMatch(/^\/api\/reports\/compliance\?siteId=maple-ridge.*format=html/);
    expect(csv).toMatch(/format=csv/);
    expect(await page.locator('#site-reports a:has-text("PDF")').getAttribute('href')).toMatch(/format=pdf/);
    // Any period: a preset, then two days picked in the site's zone.
    await page.selectOption('#report-preset', 'lastYear');
    const lastYear = new Date().getUTCFullYear() - 1;
    expect(await page.locator('#site-reports a:has-text("Printable report")').getAttribute('href')).toContain(
      `from=${lastYear}-01-01&to=${lastYear}-12-31`,
    );
    await page.fill('#report-from', '2026-11-02');
    await page.fill('#report-to', '2026-11-01');
    await page.locator('#report-to').dispatchEvent('change');
    expect(await page.locator('#site-reports .report-links').textContent()).toMatch(/first day on or before/);
    await page.selectOption('#report-preset', 'last30');
    const rep = await fetch(`${gw.httpUrl}${csv}`);
    expect(rep.status).toBe(200);
    expect(rep.headers.get('content-type')).toContain('text/csv');
    // The verifiable report, downloaded from the dashboard as a person would, checks with the public key.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.click('#site-reports a:has-text("Verifiable file (JSON)")'),
    ]);
    const file = await download.path();
    const downloaded = JSON.parse(readFileSync(file, 'utf8')) as ReportJson;
    const key = ((await (await fetch(`${gw.httpUrl}/api/evidence/key`)).json()) as { verifierKey: string })
      .verifierKey;
    const verdict = await verifyReport(downloaded, key);
    expect(verdict.problems).toEqual([]);
    expect(verdict.checked.storms).toBeGreaterThanOrEqual(1);
    expect(downloaded.evidence.entries.filter((e) => e.kind === 'reading').length).toBeGreaterThan(1);
    await screenshot(page, 'dashboard-site');
  });

  it('records an inspection that closes the alert of the storm that has ended, and the overview follows live', async () => {
    const ended = (await stormAlerts('rg-2')).find((a) => a.overdue)!;
    await page.goto(`${gw.httpUrl}/#/inspect/maple-ridge`);
    await page.waitForSelector('#i-site option[value="maple-ridge"]', { state: 'attached' });
    expect(await page.locator('#i-at-zone').textContent()).toContain('America/New_York');
    await page.click('#inspect-form button[type="submit"]');
    await expect(page.locator('#inspect-result').textContent()).resolves.toMatch(/inspector's name/);
    await page.fill('#i-inspector', 'J. Rivera');
    await page.selectOption('#i-kind', 'storm');
    // The officer enters the developer's inspection: only the developer's side meets the storm duty.
    await page.selectOption('#i-side', 'developer');
    await page.fill('#i-notes', 'Silt fence repaired at the north outlet.');
    // The developer's storm inspection is signed: here with the inspector's typed name.
    await page.click('#inspect-form button[type="submit"]');
    await expect(page.locator('#inspect-result').textContent()).resolves.toMatch(/^Sign the inspection/);
    await page.click('#i-sign-typed-button');
    await page.click('#inspect-form button[type="submit"]');
    await page.waitForSelector('#inspect-result.msg-ok');
    expect(await page.locator('#inspect-result').textContent()).toMatch(/^Recorded inspection insp-/);
    await waitFor(
      async () => (await stormAlerts('rg-2')).find((a) => a.id === ended.id)?.status === 'resolved',
      5000,
      'the alert of the ended storm, closed by the inspection',
    );
    // The storms that rained minutes ago have not ended: an inspection now does not meet their duty.
    const raining = (await stormAlerts('rg-1'))
      .concat(await stormAlerts('rg-2'))
      .filter((a) => a.id !== ended.id);
    expect(raining).toHaveLength(2);
    expect(raining.every((a) => a.status !== 'resolved')).toBe(true);
    await page.click('nav.tabs a[href="#/overview"]');
    await page.waitForSelector('[data-site="maple-ridge"] .duty');
    await page.waitForFunction(
      () =>
        document.querySelectorAll('[data-site="maple-ridge"] .duty[data-rule="storm-inspection"]').length ===
        2,
      null,
      { timeout: 10_000 },
    );
    expect(
      await page.locator('[data-site="maple-ridge"] .duty[data-rule="routine-inspection"]').count(),
    ).toBe(1);
    // The routine 7-day report has no extension either: its dialog offers none.
    await page.click('[data-site="maple-ridge"] .duty[data-rule="routine-inspection"] button.duty-rule');
    await page.waitForSelector('#alert-body li[data-action="raised"]');
    expect(await page.locator('#alert-title').textContent()).toContain('Routine 7-day inspection');
    expect(await page.locator('#resolve-form').count()).toBe(1);
    expect(await page.locator('#extend-form').count()).toBe(0);
    await page.click('#alert-close');
  });

  it("offers Extend where an engineer's letter may move the deadline: an equipment remedy", async () => {
    // oak-lane's panel reports a pump alarm held for two minutes: an equipment-remedy alert.
    const panel = await mqtt.connectAsync(gw.mqttUrl, {
      clientId: 'oak-lane/panel-1',
      username: 'oak-lane/panel-1',
      password: 'pw-panel-1',
      reconnectPeriod: 0,
    });
    clients.push(panel);
    const now = Date.now();
    for (let i = 0; i <= 2; i++)
      await panel.publishAsync(
        'sites/oak-lane/devices/panel-1/telemetry',
        JSON.stringify({ ts: now - (3 - i) * MIN, seq: i + 1, alarms: { pump: true } }),
        { qos: 1 },
      );
    const [remedy] = await waitFor(
      async () => {
        const as = await api<AlertJson[]>('/api/alerts?siteId=oak-lane&rule=equipment-remedy');
        return as.length ? as : undefined;
      },
      10_000,
      'the equipment-remedy alert',
    );
    await page.goto(gw.httpUrl);
    await page.click(`[data-alert="${remedy!.id}"] button.duty-rule`);
    await page.waitForSelector('#alert-body li[data-action="raised"]');
    expect(await page.locator('#alert-title').textContent()).toContain('Equipment remedy');
    // The rule allows an extension, but recording the letter needs the engineer role: the page says so.
    expect(await page.locator('#extend-form').count()).toBe(0);
    expect(await page.locator('.not-offered').textContent()).toContain(
      "Recording an engineer's letter needs the engineer role (you are signed in as an inspector).",
    );
    await page.click('#alert-close');
  });

  it('shows a lost live connection and reconnects by itself', async () => {
    const p = await asViewer(await browser.newPage());
    try {
      await p.route('**/api/events?*', (route) => route.fulfill({ status: 503, body: 'down' }));
      await p.goto(gw.httpUrl);
      await p.waitForSelector('#live[data-state="reconnecting"]');
      expect(await p.locator('#live-text').textContent()).toMatch(/Reconnecting/);
      await p.unroute('**/api/events?*');
      await p.waitForSelector('#live[data-state="live"]', { timeout: 10_000 });
    } finally {
      await p.close();
    }
  });

  it('fits a phone screen', async () => {
    const phone = await asViewer(
      await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true }),
    );
    watchCsp(phone);
    try {
      await phone.goto(gw.httpUrl);
      await phone.waitForSelector('[data-site="maple-ridge"]');
      const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(1);
      await screenshot(phone, 'dashboard-phone-overview');
      await phone.goto(`${gw.httpUrl}/#/alerts`);
      await phone.waitForSelector('#alerts-body tr[data-alert]');
      expect(
        await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      ).toBeLessThanOrEqual(1);
      await screenshot(phone, 'dashboard-phone-alerts');
    } finally {
      await phone.close();
    }
    expect(pageErrors).toEqual([]);
    expect(cspViolations).toEqual([]);
  });

  it('is served with a Content-Security-Policy it works under, as is the API explorer at /docs', async () => {
    const res = await page.goto(gw.httpUrl);
    const csp = res!.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res!.headers()['x-frame-options']).toBe('DENY');
    const docs = await browser.newPage();
    watchCsp(docs);
    try {
      await docs.goto(`${gw.httpUrl}/docs`);
      await docs.waitForSelector('.swagger-ui .info .title', { timeout: 15_000 });
      expect(await docs.locator('.swagger-ui .info .title').textContent()).toMatch(
        /Compliance monitoring gateway API/,
      );
    } finally {
      await docs.close();
    }
    expect(cspViolations).toEqual([]);
  });
});
