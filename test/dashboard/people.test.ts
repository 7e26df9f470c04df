import { createHash } from 'node:crypto';
import mqtt from 'mqtt';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AlertJson, launchChromium, screenshot, watchCsp } from '../helpers/browser.ts';
import { haveBinary, waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';

const ADMIN_TOKEN = 'people-dashboard-admin-token';
const ADMIN = { name: 'Ada Admin', email: 'ada@town.example', password: 'correct horse battery' };
const OWNER = { name: 'Olga Owner', email: 'olga@oak-lane.example', password: 'septic owner pass' };
const MIN = 60_000;

describe.skipIf(!haveBinary('chromium'))('dashboard: signing in, people, sites and devices', () => {
  let gw: TestGateway;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const csp: string[] = [];
  const pageErrors: string[] = [];

  async function api<T>(method: string, path: string, body?: unknown, token = ADMIN_TOKEN): Promise<T> {
    const res = await fetch(`${gw.httpUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return (text ? JSON.parse(text) : null) as T;
  }

  /** Logs in to the broker as birch-hill/rg-9 and leaves; rejects when the login is refused. */
  async function mqttLogin(username: string, password: string): Promise<void> {
    const client = mqtt.connect(gw.mqttUrl, {
      clientId: 'birch-hill/rg-9',
      username,
      password,
      reconnectPeriod: 0,
    });
    try {
      await new Promise<void>((resolve, reject) => {
        client.once('connect', () => resolve());
        client.once('error', reject);
        client.once('close', () => reject(new Error('connection closed')));
      });
    } finally {
      client.end(true);
    }
  }

  async function newPage(): Promise<Page> {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(ctx);
    const page = await ctx.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    watchCsp(page, csp);
    return page;
  }

  async function signIn(page: Page, who: { email: string; password: string }) {
    await page.goto(`${gw.httpUrl}/#/signin`);
    await page.fill('#signin-email', who.email);
    await page.fill('#signin-password', who.password);
    await page.click('#signin-form button[type="submit"]');
  }

  beforeAll(async () => {
    gw = await startTestGateway({
      auth: {
        tokens: [
          {
            name: 'Setup',
            role: 'admin',
            tokenSha256: createHash('sha256').update(ADMIN_TOKEN).digest('hex'),
          },
        ],
      },
    });
    await api('POST', '/api/users', { ...ADMIN, role: 'admin' });
    await api('POST', '/api/users', { ...OWNER, role: 'owner', sites: ['oak-lane'] });
    browser = await launchChromium();
  });

  afterAll(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await gw?.cleanup();
  });

  it('says plainly that a password is wrong', async () => {
    const page = await newPage();
    await signIn(page, { email: ADMIN.email, password: 'not the password' });
    await page.waitForSelector('#signin-msg.msg-bad');
    expect(await page.locator('#signin-msg').textContent()).toMatch(/Wrong e-mail or password/);
    expect(await page.locator('#who').textContent()).toContain('Sign in');
    await screenshot(page, 'signin-wrong-password');
  });

  it('does not keep a pasted token the gateway refuses, and keeps a good one', async () => {
    const page = await newPage();
    await page.goto(gw.httpUrl);
    // Reads need a sign-in or a token: the page opens on the sign-in page, the token box beside it.
    await page.waitForURL(/#\/signin$/);
    expect(await page.locator('[data-site]').count()).toBe(0);
    await page.click('.token-box summary');
    await page.fill('#token', 'not-a-real-token');
    await page.click('#token-form button[type="submit"]');
    await page.waitForSelector('#token-state.text-bad');
    expect(await page.locator('#token-state').textContent()).toMatch(/not accepted.*not saved/);
    expect(await page.evaluate(() => Object.values(sessionStorage))).not.toContain('not-a-real-token');
    await screenshot(page, 'token-wrong', false);
    await page.fill('#token', ADMIN_TOKEN);
    await page.click('#token-form button[type="submit"]');
    await page.waitForSelector('#token-state:has-text("checked and saved")');
    expect(await page.locator('#who').textContent()).toMatch(/Setup.*administrator/);
  });

  it('signs an admin in, who adds a site and a device through the forms; the secret is shown once', async () => {
    const page = await newPage();
    await signIn(page, ADMIN);
    await page.waitForSelector('#who-name:has-text("Ada Admin")');
    expect(await page.locator('#who-role').textContent()).toBe('administrator');
    expect(await page.locator('#signout').isVisible()).toBe(true);
    for (const link of ['People', 'Sites and devices', 'Changes', 'My tokens'])
      expect(await page.locator(`nav.tabs a:has-text("${link}")`).isVisible()).toBe(true);
    await page.waitForSelector('[data-site="maple-ridge"]');
    await screenshot(page, 'admin-signed-in');

    // A site: the schema's complaints are shown by their fields before anything is sent.
    await page.click('nav.tabs a:has-text("Sites and devices")');
    await page.waitForSelector('[data-manage-site="maple-ridge"]');
    await page.click('#site-add-box summary');
    await page.fill('#site-add-id', 'birch hill!');
    await page.click('#site-add button[type="submit"]');
    await page.waitForSelector('#site-add-id-err:not([hidden])');
    expect(await page.locator('#site-add-id').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#site-add-id-err').textContent()).toMatch(/letters, digits/);
    await screenshot(page, 'admin-site-field-errors');
    await page.fill('#site-add-id', 'birch-hill');
    await page.fill('#site-add-name', 'Birch Hill lots');
    await page.selectOption('#site-add-kind', 'construction');
    await page.fill('#site-add-timezone', 'America/Chicago');
    await page.click('#site-add button[type="submit"]');
    await page.waitForSelector('#site-add-msg.msg-ok');
    await page.waitForSelector('[data-manage-site="birch-hill"]');
    const sites = await api<Array<{ id: string; name: string; timezone: string }>>('GET', '/api/sites');
    expect(sites.find((s) => s.id === 'birch-hill')).toMatchObject({
      name: 'Birch Hill lots',
      timezone: 'America/Chicago',
    });
    await screenshot(page, 'admin-add-site');

    // Editing a rule parameter: the form shows the parameters as they stand and sends the whole of one back.
    await page.click('[data-manage-site="birch-hill"] button:has-text("Edit")');
    await page.waitForSelector('#site-edit');
    await page.click('#site-edit details.group summary');
    expect(await page.inputValue('#site-edit-storm-interEventHours')).toBe('6');
    await page.fill('#site-edit-storm-thresholdIn', '0.75');
    await page.fill('#site-edit-routineInspectionDays', '-3');
    await page.click('#site-edit button[type="submit"]');
    await page.waitForSelector('#site-edit-routineInspectionDays-err:not([hidden])');
    await screenshot(page, 'admin-edit-site-parameters', false);
    await page.fill('#site-edit-routineInspectionDays', '7');
    // A threshold above the law's 0.5 in is kept only with a reason.
    await page.fill('#site-edit-lawOverrides-storm-threshold', 'Agreed with the town engineer.');
    await page.click('#site-edit button[type="submit"]');
    await page.waitForSelector('#edit-dialog', { state: 'hidden' });
    const edits = await api<
      Array<{ entity: string; action: string; new: { storm?: Record<string, unknown> } }>
    >('GET', '/api/changes?siteId=birch-hill');
    const edit = edits.filter((c) => c.entity === 'site' && c.action === 'update').at(-1);
    expect(edit?.new.storm).toMatchObject({ thresholdIn: 0.75, interEventHours: 6, dueHours: 24 });

    // A rain gauge on it: kind-specific fields, checked, then its MQTT login shown once.
    await page.click('[data-manage-site="birch-hill"] a:has-text("devices")');
    await page.waitForSelector('#device-add');
    await page.fill('#device-add-id', 'rg-9');
    await page.selectOption('#device-add-kind', 'rain-gauge');
    expect(await page.locator('#device-add-inchesPerTip').isVisible()).toBe(true);
    expect(await page.locator('#device-add-liquidDepthIn').isVisible()).toBe(false);
    await page.fill('#device-add-inchesPerTip', '-1');
    await page.click('#device-add button[type="submit"]');
    await page.waitForSelector('#device-add-inchesPerTip-err:not([hidden])');
    await page.fill('#device-add-inchesPerTip', '0.01');
    await page.click('#device-add button[type="submit"]');
    const dialog = page.locator('#secret-dialog');
    await dialog.waitFor();
    expect(await dialog.textContent()).toMatch(/Shown once/);
    const username = (await page.locator('[data-secret="Username"]').textContent()) ?? '';
    const password = (await page.locator('[data-secret="Password"]').textContent()) ?? '';
    expect(username).toContain('rg-9');
    expect(password.length).toBeGreaterThanOrEqual(16);
    // Each value (client id, username, password) with its copy button.
    expect(await dialog.locator('.secret-row button.copy').count()).toBe(
      await dialog.locator('.secret-row').count(),
    );
    expect(await dialog.locator('.secret-row').count()).toBeGreaterThanOrEqual(2);
    await screenshot(page, 'admin-device-secret', false);
    await page.click('#secret-done');
    await page.waitForSelector('#secret-dialog', { state: 'hidden' });
    await page.waitForSelector('[data-device-row="rg-9"]');
    expect(await page.locator('body').textContent()).not.toContain(password);
    await screenshot(page, 'admin-devices');

    // The secret is the device's real login.
    await mqttLogin(username, password);

    // A calibration change from an effective time, a new secret (the old one refused at once), retirement.
    await page.click('[data-device-row="rg-9"] button:has-text("Edit")');
    await page.waitForSelector('#device-calibration');
    await page.fill('#device-calibration-inchesPerTip', '0.007874');
    await page.click('#device-calibration button[type="submit"]');
    await page.waitForSelector('[data-device-row="rg-9"]:has-text("0.007874")');
    await page.click('[data-device-row="rg-9"] button:has-text("Edit")');
    await page.click('#device-rotate');
    await page.waitForSelector('#secret-dialog [data-secret="Password"]');
    const rotated = (await page.locator('[data-secret="Password"]').textContent()) ?? '';
    expect(rotated).not.toBe(password);
    await screenshot(page, 'admin-device-rotated-secret', false);
    await page.click('#secret-done');
    await expect(mqttLogin(username, password)).rejects.toThrow();
    await mqttLogin(username, rotated);
    await page.click('#device-retire');
    await page.waitForSelector('#edit-body .msg-bad');
    await page.check('#device-retire-confirm');
    await page.click('#device-retire');
    await page.waitForSelector('[data-device-row="rg-9"] .badge:has-text("retired")');
    await screenshot(page, 'admin-device-retired');

    // Every change is a record, shown on the change records page.
    await page.click('nav.tabs a:has-text("Changes")');
    await page.waitForSelector('#changes-list tr[data-change]');
    const changes = await page.locator('#changes-list').textContent();
    expect(changes).toContain('birch-hill');
    expect(changes).toContain('Ada Admin');
    await screenshot(page, 'admin-changes');

    await page.click('nav.tabs a:has-text("People")');
    await page.waitForSelector(`[data-person="${OWNER.email}"]`);
    expect(await page.locator(`[data-person="${OWNER.email}"]`).textContent()).toMatch(/Owner.*Oak|oak-lane/);
    await screenshot(page, 'admin-people');
  });

  it('creates a personal token shown once, and revokes it', async () => {
    const page = await newPage();
    await signIn(page, ADMIN);
    await page.waitForSelector('#who-name:has-text("Ada Admin")');
    await page.goto(`${gw.httpUrl}/#/tokens`);
    await page.fill('#token-add-name', 'field-tablet');
    await page.click('#token-add button[type="submit"]');
    await page.locator('#secret-dialog').waitFor();
    const token = (await page.locator('[data-secret="Token"]').textContent()) ?? '';
    expect((await api<{ name: string }>('GET', '/api/auth/me', undefined, token)).name).toContain(
      'Ada Admin',
    );
    await screenshot(page, 'token-created', false);
    await page.click('#secret-done');
    await page.click('[data-token="field-tablet"] button:has-text("Revoke")');
    await page.waitForSelector('#tokens-status.msg-ok');
    const res = await fetch(`${gw.httpUrl}/api/auth/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(401);
    await screenshot(page, 'tokens');
  });

  it('shows an owner their own system only, and confirms resolving an alarm that is still active', async () => {
    const panel = mqtt.connect(gw.mqttUrl, {
      clientId: 'oak-lane/panel-1',
      username: 'oak-lane/panel-1',
      password: 'pw-panel-1',
      reconnectPeriod: 0,
    });
    await new Promise<void>((resolve, reject) => {
      panel.once('connect', () => resolve());
      panel.once('error', reject);
    });
    try {
      const now = Date.now();
      for (let i = 5; i >= 0; i--)
        await panel.publishAsync(
          'sites/oak-lane/devices/panel-1/telemetry',
          JSON.stringify({ ts: now - i * MIN, seq: 6 - i, levelIn: 30, alarms: { pump: true } }),
          { qos: 1 },
        );
      const alarm = async () =>
        (await api<AlertJson[]>('GET', '/api/alerts?siteId=oak-lane&rule=equipment-remedy'))[0];
      await waitFor(async () => (await alarm()) !== undefined, 10_000, 'the pump alarm');

      const page = await newPage();
      await signIn(page, OWNER);
      await page.waitForSelector('#who-name:has-text("Olga Owner")');
      await page.waitForSelector('[data-site="oak-lane"]');
      const shown = await page
        .locator('[data-site]')
        .evaluateAll((els) => els.map((e) => e.getAttribute('data-site')));
      expect(shown).toEqual(['oak-lane']);
      expect(await page.locator('#who-role').textContent()).toBe('owner');
      for (const link of ['People', 'Sites and devices', 'Changes'])
        expect(await page.locator(`nav.tabs a:has-text("${link}")`).isVisible()).toBe(false);
      expect(await page.locator('a[href*="maple-ridge"]').count()).toBe(0);
      await page.click('nav.tabs a[href="#/alerts"]');
      await page.waitForSelector('#alerts-body tr[data-alert]');
      expect(await page.locator('#f-site option').allTextContents()).not.toContain('maple-ridge');
      await screenshot(page, 'owner-alerts');
      await page.click('nav.tabs a[href="#/overview"]');
      await page.waitForSelector('[data-site="oak-lane"]');
      await screenshot(page, 'owner-overview');

      // Resolving while the panel still reports the pump alarm: asked in words, then sent with the
      // confirmation.
      // The dialog opens from the page's copy and re-draws when the gateway answers: held here until the
      // note is typed, the answer must not wipe it.
      const a = (await alarm())!;
      const path = `/api/alerts/${encodeURIComponent(a.id)}`;
      let release = () => {};
      const held = new Promise<void>((r) => {
        release = r;
      });
      const isPath = (u: URL) => u.pathname === path;
      await page.route(isPath, async (route) => {
        await held;
        await route.continue();
      });
      await page.click(`[data-alert="${a.id}"] button.duty-rule`);
      await page.waitForSelector('#resolve-form');
      const note = 'Pump replaced; float stuck, technician on the way.';
      await page.fill('#resolve-note', note);
      await page.$eval('#resolve-form', (f) => f.setAttribute('data-drawn', 'before'));
      release();
      await page.waitForSelector('#resolve-form:not([data-drawn])');
      expect(await page.inputValue('#resolve-note')).toBe(note);
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('resolve-note');
      await page.unroute(isPath);
      await page.click('#resolve-form button[type="submit"]');
      await page.waitForSelector('#confirm-active');
      expect(await page.locator('#dialog-confirm').textContent()).toContain(
        'The device still reports the alarm. Resolve anyway?',
      );
      expect((await alarm())?.status).not.toBe('resolved');
      await screenshot(page, 'owner-resolve-still-active', false);
      await page.click('#confirm-active');
      await page.waitForSelector('#dialog-ok:has-text("Resolved while the alarm was still active")');
      await page.waitForSelector(
        '#alert-body li[data-action="resolved"] .badge:has-text("while the alarm was still active")',
      );
      const after = (await api<AlertJson>('GET', `/api/alerts/${encodeURIComponent(a.id)}`))!;
      expect(after.status).toBe('resolved');
      const resolved = after.history.find((h) => h.action === 'resolved');
      expect(resolved?.actor).toContain('Olga Owner');
      await screenshot(page, 'owner-resolved-while-active', false);
    } finally {
      panel.end(true);
    }
  });

  it('says when a session has ended, and signs out', async () => {
    const page = await newPage();
    await signIn(page, ADMIN);
    await page.waitForSelector('#who-name:has-text("Ada Admin")');
    await page.context().clearCookies();
    await page.click('nav.tabs a:has-text("People")');
    await page.waitForSelector('#signin-expired:not([hidden])');
    expect(await page.locator('#signin-expired').textContent()).toMatch(/session has ended/);
    expect(await page.locator('#who').textContent()).toContain('Sign in');
    await screenshot(page, 'session-expired');
    await signIn(page, ADMIN);
    await page.waitForSelector('#who-name:has-text("Ada Admin")');
    await page.click('#signout');
    await page.waitForSelector('#signin-link');
    expect(await page.locator('#signin-expired').isHidden()).toBe(true);
    expect(await page.locator('nav.tabs a:has-text("People")').isVisible()).toBe(false);
  });

  it('tells how long to wait once sign-ins are throttled', async () => {
    const page = await newPage();
    await page.goto(`${gw.httpUrl}/#/signin`);
    let text = '';
    for (let i = 0; i < 20 && !/Too many/.test(text); i++) {
      await page.fill('#signin-email', OWNER.email);
      await page.fill('#signin-password', `wrong ${i}`);
      await page.evaluate(() => {
        document.getElementById('signin-msg')!.className = 'msg';
      });
      await page.click('#signin-form button[type="submit"]');
      await page.waitForSelector('#signin-msg.msg-bad');
      text = (await page.locator('#signin-msg').textContent()) ?? '';
    }
    expect(text).toMatch(/Too many failed sign-ins: signing in is paused for \d+ (seconds?|minutes)/);
    await screenshot(page, 'signin-throttled');
    expect(pageErrors).toEqual([]);
    expect(csp).toEqual([]);
  });
});
