/**
 * Devices of LoRaWAN and Modbus RTU on the dashboard: an administrator adds one of each through the
 * device forms ("How it connects", then the sensor profile of that way and kind, then what it needs, the
 * gateway's refusals beside their fields), and the site page shows how each connects, its last message
 * as it sent it beside the readings the gateway read, and its problems in words with their times.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_FIELDBUS, TEST_PROFILES } from '../fixtures/profiles.ts';
import { launchChromium, screenshot, watchPage } from '../helpers/browser.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { PASSWORD, peopleApi, sha } from '../helpers/people.ts';

const ADMIN_TOKEN = 'device-transports-admin-token';
const ADMIN = { name: 'Ada Admin', email: 'ada@town.example' };

describe('devices of LoRaWAN and Modbus RTU on the dashboard', () => {
  let gw: TestGateway;
  let browser: Browser;
  beforeAll(async () => {
    gw = await startTestGateway(
      {
        ...TEST_FIELDBUS,
        // The network server named in words; nothing in this test connects to it.
        integrations: { chirpstack: { url: 'mqtt://127.0.0.1:1', applications: ['town'] } },
        auth: { tokens: [{ name: 'Setup', role: 'admin', tokenSha256: sha(ADMIN_TOKEN) }] },
      } as never,
      { profiles: TEST_PROFILES },
    );
    const api = peopleApi(gw.httpUrl, ADMIN_TOKEN);
    const made = await api.call(
      'POST',
      '/api/users',
      { ...ADMIN, role: 'admin', password: PASSWORD, sites: [] },
      api.admin,
    );
    expect(made.status).toBe(201);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await gw?.cleanup();
  });

  async function signedIn(width: number, height: number): Promise<{ page: Page; errors: string[] }> {
    const ctx = await browser.newContext({ viewport: { width, height } });
    const page = await ctx.newPage();
    const { errors } = watchPage(page);
    await page.goto(`${gw.httpUrl}/#/signin`);
    await page.fill('#signin-email', ADMIN.email);
    await page.fill('#signin-password', PASSWORD);
    await page.click('#signin-form button[type="submit"]');
    await page.waitForSelector('#signin-form', { state: 'hidden' });
    return { page, errors };
  }

  it('adds a LoRaWAN and a Modbus device through the forms, refusals beside their fields', async () => {
    const { page, errors } = await signedIn(1366, 900);
    await page.goto(`${gw.httpUrl}/#/devices/oak-lane`);
    await page.waitForSelector('#device-add-transport');
    // The gateway's own JSON by default: no profile asked for.
    expect(await page.locator('#device-add-profile').isVisible()).toBe(false);

    await page.fill('#device-add-id', 'tank-lora');
    await page.selectOption('#device-add-kind', 'septic-tank');
    await page.fill('#device-add-liquidDepthIn', '60');
    await page.selectOption('#device-add-transport', 'lorawan');
    // Only the LoRaWAN profiles of a septic tank are offered.
    const offered = await page.locator('#device-add-profile option').allTextContents();
    expect(offered).toEqual(['Choose the sensor…', 'Test ultrasonic tank level (LoRaWAN)']);
    expect(await page.locator('#device-add-devEui').isVisible()).toBe(true);
    expect(await page.locator('#device-add-modbus-bus').isVisible()).toBe(false);
    expect(await page.locator('#device-add-mountHeightIn').isVisible()).toBe(false);
    await page.selectOption('#device-add-profile', 'test-lorawan-ultrasonic');
    // This profile derives the level from the mounting height: its field appears.
    expect(await page.locator('#device-add-mountHeightIn').isVisible()).toBe(true);
    await page.fill('#device-add-devEui', '70B3D57E');
    await page.click('#device-add button[type="submit"]');
    await page.waitForSelector('#device-add-devEui-err:not([hidden])');
    expect(await page.textContent('#device-add-devEui-err')).toBe('16 hexadecimal digits');
    await page.fill('#device-add-devEui', '70B3D57ED0001234');
    // Left empty, the mounting height is refused by the gateway, beside its field.
    await page.click('#device-add button[type="submit"]');
    await page.waitForSelector('#device-add-mountHeightIn-err:not([hidden])');
    expect(await page.textContent('#device-add-mountHeightIn-err')).toMatch(
      /measures the distance down to the surface: give the sensor's mounting height above the bottom, in inches/,
    );
    await screenshot(page, 'device-add-lorawan-refused', false);
    await page.fill('#device-add-mountHeightIn', '70');
    await page.click('#device-add button[type="submit"]');
    await page.waitForSelector('#device-add-msg.msg-ok');
    expect(await page.textContent('#device-add-msg')).toMatch(/Added tank-lora\. It needs no MQTT password/);
    // No MQTT login is shown for it.
    expect(await page.locator('#secret-dialog').isVisible()).toBe(false);
    await page.waitForSelector('[data-device-row="tank-lora"]');
    expect(await page.textContent('[data-device-row="tank-lora"]')).toContain('LoRaWAN through ChirpStack');

    await page.fill('#device-add-id', 'tank-mb');
    await page.selectOption('#device-add-kind', 'holding-tank');
    await page.fill('#device-add-liquidDepthIn', '60');
    await page.fill('#device-add-highLevelIn', '50');
    await page.selectOption('#device-add-transport', 'modbus');
    expect(await page.locator('#device-add-profile option').allTextContents()).toEqual([
      'Choose the sensor…',
      'Test pressure level transmitter (Modbus RTU)',
    ]);
    await page.selectOption('#device-add-profile', 'test-modbus-level');
    expect(await page.locator('#device-add-mountHeightIn').isVisible()).toBe(false);
    await page.fill('#device-add-modbus-bus', '/dev/ttyNOPE');
    await page.fill('#device-add-modbus-unitId', '3');
    await page.click('#device-add button[type="submit"]');
    await page.waitForSelector('#device-add-modbus-bus-err:not([hidden])');
    expect(await page.textContent('#device-add-modbus-bus-err')).toBe(
      'There is no Modbus bus /dev/ttyNOPE: the configured ones are /dev/test-modbus-0.',
    );
    await page.fill('#device-add-modbus-bus', '/dev/test-modbus-0');
    await page.click('#device-add button[type="submit"]');
    await page.waitForSelector('#device-add-msg.msg-ok');
    expect(await page.textContent('#device-add-msg')).toMatch(
      /Added tank-mb\. It needs no MQTT password: the gateway reads it .* on \/dev\/test-modbus-0, unit 3, every 60 s\./,
    );
    await page.waitForSelector('[data-device-row="tank-mb"]');
    expect(await page.textContent('[data-device-row="tank-mb"]')).toContain(
      'Modbus RTU, unit 3 on /dev/test-modbus-0, every 60 s',
    );
    await screenshot(page, 'device-add-native', true);
    // Edited: its fields filled in, no MQTT secret to rotate, a new read interval said in words.
    await page.click('[data-device-row="tank-mb"] button:has-text("Edit")');
    await page.waitForSelector('#device-edit');
    expect(await page.inputValue('#device-edit-transport')).toBe('modbus');
    expect(await page.inputValue('#device-edit-profile')).toBe('test-modbus-level');
    expect(await page.inputValue('#device-edit-modbus-unitId')).toBe('3');
    expect(await page.locator('#device-rotate').count()).toBe(0);
    await page.fill('#device-edit-modbus-pollSeconds', '300');
    await page.click('#device-edit button[type="submit"]');
    await page.waitForSelector('#edit-dialog', { state: 'hidden' });
    await page.waitForSelector('[data-device-row="tank-mb"]:has-text("every 5 min")');
    // Reset for the next page, which reads it every 60 s.
    await page.click('[data-device-row="tank-mb"] button:has-text("Edit")');
    await page.fill('#device-edit-modbus-pollSeconds', '60');
    await page.click('#device-edit button[type="submit"]');
    await page.waitForSelector('#edit-dialog', { state: 'hidden' });
    await page.waitForSelector('[data-device-row="tank-mb"]:has-text("every 60 s")');
    const site = (await (await fetch(`${gw.httpUrl}/api/sites/oak-lane`)).json()) as {
      devices: Array<Record<string, unknown>>;
    };
    expect(site.devices.find((d) => d.id === 'tank-mb')).toMatchObject({
      transport: 'modbus',
      profile: 'test-modbus-level',
      modbus: { bus: '/dev/test-modbus-0', unitId: 3, pollSeconds: 60 },
    });
    // The two refusals the form showed beside their fields are the browser's only complaints.
    expect(errors).toEqual([
      'Failed to load resource: the server responded with a status of 400 (Bad Request)',
      'Failed to load resource: the server responded with a status of 400 (Bad Request)',
    ]);
  });

  it("shows a device's last message beside its readings, and its problems in words", async () => {
    // The Modbus poller and its decoder are their own parts of the gateway: what they record of a poll
    // is written here as they write it, to show it.
    const at = Date.now() - 10 * 60_000;
    gw.links.heard('oak-lane', 'tank-mb', {
      at,
      raw: '{"unitId":3,"input":{"1":412}}',
      outcome: 'stored',
      values: { levelIn: 41.2 },
    });
    gw.links.error('oak-lane', 'tank-mb', at + 60_000, 'Unit 3 did not answer within 1 s.');
    for (const [width, height, name] of [
      [1366, 900, 'device-link-desktop'],
      [390, 844, 'device-link-phone'],
    ] as const) {
      const { page, errors } = await signedIn(width, height);
      await page.goto(`${gw.httpUrl}/#/site/oak-lane`);
      const card = page.locator('article[data-device="tank-mb"]');
      await card.locator('.link-pair').waitFor();
      expect(await card.locator('[data-connects]').textContent()).toBe(
        'Modbus RTU, unit 3 on /dev/test-modbus-0, every 60 s',
      );
      expect(await page.locator('article[data-device="tank-lora"] [data-connects]').textContent()).toBe(
        'LoRaWAN through ChirpStack',
      );
      expect(await page.locator('article[data-device="panel-1"] [data-connects]').textContent()).toBe(
        "MQTT (the gateway's own JSON)",
      );
      const link = card.locator('.device-link');
      expect(await link.textContent()).toContain(
        'Sensor profile: Test pressure level transmitter (Modbus RTU)',
      );
      expect(await link.textContent()).toContain('Follows: Test register map');
      expect(await link.locator('.link-sent h4').textContent()).toBe('What it sent');
      expect(await link.locator('.link-sent pre').textContent()).toContain('"1": 412');
      expect(await link.locator('.link-read h4').textContent()).toBe('What the gateway read');
      expect(await link.locator('[data-read="levelIn"] td').textContent()).toMatch(/^41(\.2)? in$/);
      // The gateway's own Modbus input says in words that the test's bus cannot be opened, too.
      const problems = await link.locator('.link-errors li').allTextContents();
      expect(problems).toContainEqual(
        expect.stringMatching(
          /^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2} [AP]M E[SD]T Unit 3 did not answer within 1 s\.$/,
        ),
      );
      for (const p of problems) expect(p).not.toMatch(/\bE[A-Z]{3,}\b|undefined|\{/);
      // Side by side on a desktop, one above the other on a phone.
      const sent = await link.locator('.link-sent').boundingBox();
      const read = await link.locator('.link-read').boundingBox();
      expect(sent && read).toBeTruthy();
      if (width > 600) expect(read!.x).toBeGreaterThan(sent!.x);
      else expect(read!.y).toBeGreaterThan(sent!.y);
      // What people read, the message as the device sent it apart.
      const words = await page.locator('#site-devices').evaluate((el) => {
        const copy = el.cloneNode(true) as HTMLElement;
        for (const pre of copy.querySelectorAll('pre')) pre.remove();
        return copy.textContent ?? '';
      });
      expect(words).not.toMatch(/devEui|unitId|mountHeightIn|pollSeconds|\bundefined\b/);
      await card.scrollIntoViewIfNeeded();
      await screenshot(page, name, true);
      expect(errors).toEqual([]);
      await page.context().close();
    }
  });
});
