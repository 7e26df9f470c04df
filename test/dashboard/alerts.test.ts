/**
 * The alerts page and the alert dialog in Chromium against a real gateway, as the town's officer uses
 * them at a desk (1366x900) and on a phone (390x844): most urgent first (overdue, then the alarm a device
 * still reports, then the soonest due); the storm's evidence in sentences in the site's zone; the storm's
 * per-tip due time changes folded into one line; only the actions the rule allows, with the reason; a
 * still-active alarm's resolution asked in words; permalinks; the change records as sentences; the
 * phone's menu. No console error, no CSP violation, no raw key or API code in the words.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatLong } from '../../shared/src/time.ts';
import { type AlertJson, launchChromium, screenshot } from '../helpers/browser.ts';
import { haveBinary } from '../helpers/env.ts';
import { OFFICER, type Scenario, signIn, startScenario } from './alertsScenario.ts';

const NY = 'America/New_York';
/** Words a clerk should never read in a dialog: raw keys, raw values, API codes. */
const RAW = /dueAt|crossingReceivedAt|thresholdAt|\bnull\b|undefined|confirmActive|BAD_|STILL_ACTIVE|\{"/;
const suffix = process.env.SCREENSHOT_SUFFIX ?? '';

describe.skipIf(!haveBinary('chromium'))('the alerts page and dialog', () => {
  let s: Scenario;
  let browser: Browser;
  let desk: Page;
  const problems: string[] = [];
  let storm: AlertJson & { evidence: Record<string, unknown> };
  let overdueStorm: AlertJson;
  let alarm: AlertJson;
  let routine: AlertJson;

  beforeAll(async () => {
    s = await startScenario();
    const storms = (await s.alerts('siteId=maple-ridge&rule=storm-inspection')) as Array<
      AlertJson & { evidence: Record<string, unknown> }
    >;
    storm = storms.find((a) => a.deviceId === 'rg-1')!;
    overdueStorm = storms.find((a) => a.deviceId === 'rg-2')!;
    alarm = (await s.alerts('siteId=oak-lane&rule=equipment-remedy'))[0]!;
    routine = (await s.alerts('siteId=maple-ridge&rule=routine-inspection'))[0]!;
    browser = await launchChromium();
    desk = await browser.newPage({ viewport: { width: 1366, height: 900 }, timezoneId: 'America/Chicago' });
    await signIn(desk, s.gw.httpUrl, problems);
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  /** The browser logs a refused request itself: one the test asked for is no problem of the page. */
  const expectedRefusal = (status: number) => {
    const i = problems.findIndex((p) =>
      p.includes(`Failed to load resource: the server responded with a status of ${status}`),
    );
    if (i >= 0) problems.splice(i, 1);
  };
  const dialogText = () =>
    desk
      .locator('#alert-dialog')
      .textContent()
      .then((t) => t ?? '');

  it('lists the overdue duties first, the alarm marked apart, then the soonest due', async () => {
    await desk.goto(`${s.gw.httpUrl}/#/alerts`);
    await desk.waitForSelector(`#alerts-body tr[data-alert="${alarm.id}"][data-urgency="alarm"]`);
    const order = await desk
      .locator('#alerts-body tr[data-alert]')
      .evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-alert'), r.getAttribute('data-urgency')]));
    const at = (id: string) => order.findIndex(([a]) => a === id);
    // The storm two days ago, overdue, above the newer one that is due later (the API lists newest first).
    expect(at(overdueStorm.id)).toBeGreaterThanOrEqual(0);
    expect(at(overdueStorm.id)).toBeLessThan(at(storm.id));
    // Every overdue duty comes first; then the alarm; then the soonest due (the storm before the 7-day report).
    const urgencies = order.map(([, u]) => u);
    expect(urgencies.lastIndexOf('overdue')).toBeLessThan(urgencies.indexOf('alarm'));
    expect(at(alarm.id)).toBeLessThan(at(storm.id));
    expect(at(storm.id)).toBeLessThan(at(routine.id));
    // The alarm's badge is not an inspection duty's.
    const alarmRow = desk.locator(`tr[data-alert="${alarm.id}"]`);
    expect(await alarmRow.locator('.badge-alarm').textContent()).toBe('Alarm');
    expect(await desk.locator(`tr[data-alert="${storm.id}"] .badge-due`).textContent()).toBe(
      'Inspection due',
    );
    expect(await desk.locator('#alerts-status').textContent()).toMatch(/most urgent first/);
    await screenshot(desk, `alerts-desktop${suffix}`);
    expect(problems).toEqual([]);
  });

  it("tells the storm's evidence in sentences in the site's zone, and folds its per-tip updates", async () => {
    await desk.click(`tr[data-alert="${storm.id}"] button.linklike`);
    await desk.waitForSelector('#alert-body li[data-action="raised"]');
    // The full answer, with the evidence in words (the table's copy has them too).
    const full = await s.api<AlertJson & { evidence: Record<string, string> }>(`/api/alerts/${storm.id}`);
    const crossing = formatLong(Date.parse(full.evidence.thresholdAt!), NY);
    const evidence = desk.locator('#alert-body dl.evidence');
    const line = async (label: string) =>
      (await evidence.locator(`dt:text-is("${label}") + dd`).textContent()) ?? '';
    expect(await line('Storm')).toMatch(
      /^0\.62 in \(62 tips of 0\.01 in\) at rain gauge rg-1, .+ E[SD]T to .+ E[SD]T/,
    );
    expect(await line('Threshold')).toContain(`crossed 0.5 in (50 tips) at ${crossing}`);
    expect(await line('Inspection due')).toMatch(/24 h after the last tip; it moves while it still rains/);
    // The browser is in Chicago; the site in New York: its times are told in its own zone.
    expect(crossing).toMatch(/E[SD]T$/);
    expect(await dialogText()).not.toMatch(/C[SD]T/);
    // The updates that moved the due time with each tip, in one line with their count.
    const moved = full.history.filter((e) => e.action === 'updated' && typeof e.detail.dueAt === 'string');
    expect(moved.length).toBeGreaterThanOrEqual(2);
    const folded = desk.locator('#alert-body li.history-folded');
    expect(await folded.count()).toBe(1);
    expect(await folded.getAttribute('data-count')).toBe(String(moved.length));
    expect(await folded.locator('.history-text').first().textContent()).toMatch(
      new RegExp(`^Due moved ${moved.length} times as readings came in; last to .+ E[SD]T$`),
    );
    expect(await folded.locator('ol.history-run').isVisible()).toBe(false);
    await folded.locator('button.history-toggle').click();
    expect(await folded.locator('ol.history-run').isVisible()).toBe(true);
    expect(await folded.locator('ol.history-run > li').count()).toBe(moved.length);
    expect(await folded.locator('button.history-toggle').getAttribute('aria-expanded')).toBe('true');
    expect(await desk.locator('#alert-body li[data-action="raised"] .history-text').textContent()).toBe(
      'Raised by the rain gauge rg-1',
    );
    // The 24-hour storm inspection cannot be extended: no form, the reason in words.
    expect(await desk.locator('#extend-form').count()).toBe(0);
    expect(await desk.locator('.not-offered').textContent()).toContain(
      'The 24-hour storm inspection cannot be extended',
    );
    expect(await desk.locator('#inspect-action a').getAttribute('href')).toBe('#/inspect/maple-ridge/storm');
    // Opened from the list, its link is in the address bar.
    expect(new URL(desk.url()).hash).toBe(`#/alerts/${storm.id}`);
    const words = await dialogText();
    expect(RAW.exec(words)?.[0]).toBeUndefined();
    await folded.locator('button.history-toggle').click();
    await screenshot(desk, `alert-dialog-desktop${suffix}`, false);
    await desk.click('#alert-close');
    await desk.waitForFunction(() => location.hash === '#/alerts');
    expect(problems).toEqual([]);
  });

  it('offers no Extend on a routine inspection, and says why', async () => {
    await desk.click(`tr[data-alert="${routine.id}"] button.linklike`);
    await desk.waitForSelector('#alert-body li[data-action="raised"]');
    expect(await desk.locator('#alert-title').textContent()).toContain('Routine 7-day inspection');
    expect(await desk.locator('#resolve-form').count()).toBe(1);
    expect(await desk.locator('#extend-form').count()).toBe(0);
    expect(await desk.locator('.not-offered').textContent()).toContain(
      'A routine inspection cannot be extended: the law sets the interval.',
    );
    const evidence = (await desk.locator('#alert-body dl.evidence').textContent()) ?? '';
    expect(evidence).toMatch(/Last inspection\s*none on record/);
    expect(RAW.exec(await dialogText())?.[0]).toBeUndefined();
    await desk.click('#alert-close');
    await desk.waitForFunction(() => location.hash === '#/alerts');
  });

  it("opens an alert's dialog from its link, again after a reload, and a site from its link", async () => {
    await desk.goto(`${s.gw.httpUrl}/#/alerts/${storm.id}`);
    await desk.waitForSelector('#alert-dialog[open] #alert-body li[data-action="raised"]');
    expect(await desk.locator('#alert-title').textContent()).toContain('Storm inspection');
    expect(await desk.locator('#alert-link').inputValue()).toBe(`${s.gw.httpUrl}/#/alerts/${storm.id}`);
    await desk.reload();
    await desk.waitForSelector('#alert-dialog[open] #alert-body li[data-action="raised"]');
    expect(await desk.locator('#alert-title').textContent()).toContain('Storm inspection');
    await desk.click('#alert-close');
    // An alert there is none of: said in words, no code.
    await desk.goto(`${s.gw.httpUrl}/#/alerts/01NOSUCHALERT`);
    await desk.waitForSelector('#alert-dialog[open] #dialog-error.msg-bad');
    const said = (await desk.locator('#dialog-error').textContent()) ?? '';
    expect(said).toMatch(/^Not found: it may have been removed, or it is not one you may see\.$/);
    expectedRefusal(404);
    await desk.click('#alert-close');
    await desk.goto(`${s.gw.httpUrl}/#/sites/maple-ridge`);
    await desk.waitForSelector('#view-site:not([hidden]) #site-title:has-text("Maple Ridge subdivision")');
    expect(await desk.title()).toMatch(/^Maple Ridge subdivision/);
    expect(problems).toEqual([]);
  });

  it('fits a phone: the alerts most urgent first, the dialog, and the sections behind a Menu button', async () => {
    const phone = await browser.newPage({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      timezoneId: 'America/Chicago',
    });
    try {
      await signIn(phone, s.gw.httpUrl, problems);
      const menu = phone.locator('#menu-toggle');
      const nav = phone.locator('#nav-tabs');
      expect(await menu.isVisible()).toBe(true);
      expect(await menu.getAttribute('aria-expanded')).toBe('false');
      expect(await nav.isVisible()).toBe(false);
      await menu.click();
      expect(await menu.getAttribute('aria-expanded')).toBe('true');
      expect(await nav.locator('a[href="#/alerts"]').isVisible()).toBe(true);
      await screenshot(phone, `menu-phone${suffix}`, false);
      await nav.locator('a[href="#/alerts"]').click();
      expect(await menu.getAttribute('aria-expanded')).toBe('false');
      expect(await nav.isVisible()).toBe(false);
      await phone.waitForSelector(`#alerts-body tr[data-alert="${alarm.id}"][data-urgency="alarm"]`);
      // The first row on the phone is an overdue duty, not 3,000 px down.
      expect(await phone.locator('#alerts-body tr[data-alert]').first().getAttribute('data-urgency')).toBe(
        'overdue',
      );
      // Nothing is wider than the phone (a mobile page would otherwise zoom out to fit it).
      expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      await screenshot(phone, `alerts-phone${suffix}`);
      await phone.click(`tr[data-alert="${storm.id}"] button.linklike`);
      await phone.waitForSelector('#alert-body li.history-folded');
      expect(RAW.exec((await phone.locator('#alert-dialog').textContent()) ?? '')?.[0]).toBeUndefined();
      await screenshot(phone, `alert-dialog-phone${suffix}`, false);
    } finally {
      await phone.close();
    }
    // At a desk the menu button is not there, the sections are.
    expect(await desk.locator('#menu-toggle').isVisible()).toBe(false);
    expect(await desk.locator('#nav-tabs').isVisible()).toBe(true);
    expect(problems).toEqual([]);
  });

  it('asks in words before resolving an alarm the device still reports, and shows refusals in words', async () => {
    await desk.goto(`${s.gw.httpUrl}/#/alerts/${alarm.id}`);
    await desk.waitForSelector('#alert-dialog[open] #alert-body li[data-action="raised"]');
    expect(await desk.locator('#alert-title .badge-alarm').textContent()).toBe('Alarm');
    expect(await desk.locator('#alert-body .msg-alarm').textContent()).toBe(
      'The device still reports this alarm.',
    );
    const evidence = (await desk.locator('#alert-body dl.evidence').textContent()) ?? '';
    expect(evidence).toMatch(/AlarmHigh water since .+ E[SD]T/);
    // An engineer's letter may extend a remedy: the form is offered; a due time too early is refused in words.
    expect(await desk.locator('#extend-form').count()).toBe(1);
    await desk.fill('#ext-due', '2020-01-01T09:00');
    await desk.fill('#ext-engineer', 'P. Engineer, PE');
    await desk.fill('#ext-letter', 'LTR-2026-001');
    await desk.click('#extend-form button[type="submit"]');
    await desk.waitForSelector('#dialog-error.msg-bad');
    const refused = (await desk.locator('#dialog-error').textContent()) ?? '';
    expect(refused).toMatch(/^The extension was not recorded: the new due time must be later/);
    expect(refused).not.toMatch(/\b4\d\d\b|BAD_|newDueAt/);
    expectedRefusal(400);

    await desk.fill('#resolve-note', 'Float cleaned; pump reset by the owner.');
    await desk.click('#resolve-form button[type="submit"]');
    await desk.waitForSelector('#dialog-confirm .msg-warn');
    const asked = (await desk.locator('#dialog-confirm').textContent()) ?? '';
    expect(asked).toContain('The device still reports the alarm. Resolve anyway?');
    expect(RAW.exec(asked)?.[0]).toBeUndefined();
    expect((await s.api<AlertJson>(`/api/alerts/${alarm.id}`)).status).toBe('open');
    await desk.click('#confirm-active');
    await desk.waitForSelector('#dialog-ok:has-text("Resolved while the alarm was still active.")');
    const after = await s.api<AlertJson>(`/api/alerts/${alarm.id}`);
    expect(after.status).toBe('resolved');
    await desk.waitForSelector('#alert-body li[data-action="resolved"]');
    expect(await desk.locator('#alert-body li[data-action="resolved"]').textContent()).toMatch(
      new RegExp(`Resolved by ${OFFICER.name}.*while the alarm was still active.*Float cleaned`),
    );
    expect(RAW.exec(await dialogText())?.[0]).toBeUndefined();
    await desk.click('#alert-close');
    expect(problems).toEqual([]);
  });

  it("tells each change as a sentence in the site's zone, the record as stored folded away", async () => {
    await s.api('/api/sites/maple-ridge', {
      method: 'PATCH',
      body: {
        storm: { thresholdIn: 0.75 },
        lawOverrides: { 'storm-threshold': 'A threshold above the law, with its reason.' },
      },
    });
    await s.api('/api/sites/maple-ridge/devices/trap-1', { method: 'PATCH', body: { designDepthIn: 30 } });
    const [change] = (
      await s.api<Array<{ at: string; entity: string; action: string }>>('/api/changes?siteId=maple-ridge')
    ).filter((c) => c.entity === 'site' && c.action === 'update');
    await desk.goto(`${s.gw.httpUrl}/#/changes`);
    await desk.waitForSelector('#changes-list tr[data-change]');
    // What is on screen (a closed <details> with the stored record is not): innerText, not textContent.
    // biome-ignore lint/performance/useDomNodeTextContent: the words on screen are the point
    const text = await desk.locator('#changes-list').innerText();
    expect(text).toContain(
      `Site 'Maple Ridge subdivision' storm threshold changed from 0.5 in to 0.75 in by ${OFFICER.name}, ${formatLong(Date.parse(change!.at), NY)}`,
    );
    // The threshold above the law, with its reason, in a sentence of its own.
    expect(text).toContain(
      `Rain that calls for a storm inspection at 'Maple Ridge subdivision' set to 0.75 in, looser than the law's 0.5 in, for this reason: "A threshold above the law, with its reason." by ${OFFICER.name}`,
    );
    expect(text).toContain("Site '12 Oak Lane' was set up from the configuration file");
    // An account is the gateway's, not a site's: its time is in the gateway's zone (the sites'), and says so.
    expect(text).toMatch(/The account of Pat Officer was added, .+ E[SD]T \(a gateway-wide change\)/);
    expect(text).not.toMatch(/\bUTC\b/);
    // A device's parameter, by its label and unit.
    expect(text).toContain(
      `Device trap-1 at 'Maple Ridge subdivision' design depth changed from 24 in to 30 in by ${OFFICER.name}`,
    );
    // The raw record is there, folded: not in the words on screen.
    expect(text).not.toMatch(/\{"|\bnull\b|thresholdIn/);
    expect(await desk.locator('#changes-list details.recorded').count()).toBeGreaterThanOrEqual(3);
    expect(await desk.locator('#c-from-label').textContent()).toBe(`From (day, ${NY})`);
    await desk.selectOption('#c-site', 'maple-ridge');
    expect(await desk.locator('#c-from-label').textContent()).toBe(`From (day, ${NY})`);
    await screenshot(desk, `changes-desktop${suffix}`);
    expect(problems).toEqual([]);
  });
});
