/**
 * The "Records" part of a construction site's page, in Chromium against the real gateway, through its
 * forms: the developer (an owner of the site) enters the expected dates of two milestones on a phone (the
 * one already passed with no 48-hour notice shows flagged, the other waits for its notice) and the final
 * stabilization, which ends the duty of the SWPPP on site; the officer (an inspector) confirms the
 * stabilization and records the final acceptance on a desktop, and the one-year inspection shows with its
 * due date. No console error, no blocked resource, no record number or API code in the words
 * (screenshots: records-completion-phone, records-completion-desktop).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, screenshot, watchCsp } from '../helpers/browser.ts';
import { haveBinary } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { PASSWORD, peopleApi, sha } from '../helpers/people.ts';

const ADMIN_TOKEN = 'records-completion-admin';
const TZ = 'America/New_York';
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1366, height: 900 };
const DAY = 86_400_000;

/** `ms` as a datetime-local value in New York (what a person types in the site's zone). */
function localInput(ms: number): string {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone: TZ,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(ms)
      .map((x) => [x.type, x.value]),
  );
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}`;
}

/** Words a town clerk should never see. */
const NOT_FOR_PEOPLE = /\b[A-Z]{2,}_[A-Z_]+\b|undefined|null|NaN|\[object|record-[0-9A-Za-z]{6,}/;

describe.skipIf(!haveBinary('chromium'))("the site's milestones, final stabilization and acceptance", () => {
  let gw: TestGateway;
  let browser: Browser;
  const api = (path: string) =>
    fetch(`${gw.httpUrl}${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }).then(
      (r) => r.json() as Promise<unknown>,
    );
  const alerts = async (rule: string) =>
    ((await api(`/api/alerts?siteId=maple-ridge&rule=${rule}`)) as Array<Record<string, unknown>>).filter(
      (a) => a.rule === rule,
    );

  beforeAll(async () => {
    gw = await startTestGateway({
      sites: [
        {
          id: 'maple-ridge',
          name: 'Maple Ridge',
          kind: 'construction',
          timezone: TZ,
          address: 'Lots 4-9, Maple Ridge Road',
          devices: [],
        },
      ],
      auth: { tokens: [{ name: 'Ada Admin', role: 'admin', tokenSha256: sha(ADMIN_TOKEN) }] },
    });
    const people = peopleApi(gw.httpUrl, ADMIN_TOKEN);
    await people.account('Pat Inspector', 'pat@town.example', 'inspector');
    const r = await people.call(
      'POST',
      '/api/users',
      {
        name: 'Dana Developer',
        email: 'dana@maple.example',
        role: 'owner',
        password: PASSWORD,
        sites: ['maple-ridge'],
      },
      people.admin,
    );
    expect(r.status).toBe(201);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await gw?.cleanup();
  });

  async function signedIn(email: string, size: { width: number; height: number }) {
    const page = await browser.newPage({ viewport: size, timezoneId: 'America/Chicago' });
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
    watchCsp(page, problems);
    await page.goto(`${gw.httpUrl}/#/signin`);
    await page.fill('#signin-email', email);
    await page.fill('#signin-password', PASSWORD);
    await page.click('#signin-form button[type="submit"]');
    await page.waitForFunction(() => location.hash === '#/overview');
    await page.evaluate(() => {
      location.hash = '#/site/maple-ridge';
    });
    await page.locator('#site-records #records-h').waitFor();
    return { page, problems };
  }

  /** Submits a form (opened first) and waits for the part to say what was recorded. */
  async function record(page: Page, form: string, said: string) {
    await page.click(`#${form} button[type="submit"]`);
    await page.waitForFunction(
      (s) => document.querySelector('#records-result')?.textContent?.startsWith(s),
      said,
    );
  }
  const open = (page: Page, form: string) => page.click(`#${form} >> xpath=.. >> summary`);

  it('the developer enters two milestones and the final stabilization, on a phone', async () => {
    await expect.poll(async () => (await alerts('swppp-on-site')).map((a) => a.status)).toEqual(['open']);
    const { page, problems } = await signedIn('dana@maple.example', PHONE);
    expect(await page.locator('#milestones-none').textContent()).toBe('No expected milestones on file yet.');

    // A milestone already passed, with no notice filed: flagged.
    const now = Date.now();
    await open(page, 'expect-form');
    await page.click('#expect-form button[type="submit"]');
    expect(await page.locator('#expect-form .msg').textContent()).toBe(
      'Choose the date and time the milestone is expected.',
    );
    await page.selectOption('#expect-milestone', 'site-clearing-complete');
    await page.fill('#expect-at', localInput(now - 2 * DAY));
    await record(page, 'expect-form', 'Expected milestone recorded: Completion of site clearing');
    // One ahead: its notice is not due yet.
    await open(page, 'expect-form');
    await page.selectOption('#expect-milestone', 'rough-grading-complete');
    await page.fill('#expect-at', localInput(now + 10 * DAY));
    await record(page, 'expect-form', 'Expected milestone recorded: Completion of rough grading');

    const clearing = page.locator('tr[data-milestone="site-clearing-complete"]');
    expect(await clearing.getAttribute('data-flagged')).toBe('true');
    expect(await clearing.textContent()).toContain('Passed with no notice');
    const grading = page.locator('tr[data-milestone="rough-grading-complete"]');
    expect(await grading.getAttribute('data-flagged')).toBe('false');
    expect(await grading.textContent()).toContain('Not filed yet');

    // The final stabilization: a missing description is refused in words, before anything is sent.
    expect(await page.locator('#stabilization-standing').textContent()).toContain('not recorded yet');
    await open(page, 'stab-form');
    await page.click('#stab-form button[type="submit"]');
    expect(await page.locator('#stab-form .msg').textContent()).toBe(
      'Say when the site was finally stabilized and what stabilizes it.',
    );
    await page.fill('#stab-at', localInput(now - 3_600_000));
    await page.fill('#stab-description', 'Permanent grass established on all disturbed areas.');
    await record(page, 'stab-form', 'Final stabilization recorded: Permanent grass established');
    const stab = await page.locator('#stabilization-standing').textContent();
    expect(stab).toContain(
      '(recorded by Dana Developer): Permanent grass established on all disturbed areas.',
    );
    expect(stab).toContain('Not yet confirmed by the town');
    // Recorded once: the form is gone; the developer may not confirm it nor accept the site.
    expect(await page.locator('#stab-form').count()).toBe(0);
    expect(await page.locator('#confirm-form, #accept-form').count()).toBe(0);
    // The SWPPP duty ends at the stabilization.
    expect((await alerts('swppp-on-site')).map((a) => a.status)).toEqual(['resolved']);

    const text = (await page.locator('#site-records').textContent()) ?? '';
    expect(text).not.toMatch(NOT_FOR_PEOPLE);
    await screenshot(page, 'records-completion-phone');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('the officer confirms the stabilization and records the final acceptance, at 1366x900', async () => {
    const { page, problems } = await signedIn('pat@town.example', DESKTOP);
    expect(await page.locator('#one-year-standing').textContent()).toBe(
      'Final acceptance: not recorded yet.',
    );
    await open(page, 'confirm-form');
    expect(await page.locator('#confirm-form').textContent()).toContain('Recorded by Dana Developer');
    await page.fill('#confirm-note', 'Seen on site.');
    await record(page, 'confirm-form', 'The final stabilization is confirmed');
    expect(await page.locator('#stabilization-standing').textContent()).toContain(
      'Confirmed by Pat Inspector',
    );
    expect(await page.locator('#confirm-form').count()).toBe(0);

    await open(page, 'accept-form');
    await record(page, 'accept-form', 'Final acceptance recorded');
    const [duty] = await alerts('acceptance-inspection');
    expect(duty?.status).toBe('open');
    const due = new Date(String(duty!.dueAt));
    // The page says the same due date as the duty, in the site's zone, a year on.
    const shown = (await page.locator('#one-year-standing').textContent()) ?? '';
    expect(shown).toContain('The one-year inspection is due by');
    expect(shown).toContain('Not made yet');
    const year = new Intl.DateTimeFormat('en-US', { timeZone: TZ, year: 'numeric' }).format(due);
    expect(Number(year)).toBe(
      Number(new Intl.DateTimeFormat('en-US', { timeZone: TZ, year: 'numeric' }).format(Date.now())) + 1,
    );
    expect(shown).toContain(year);
    // The acceptance's form gives way to the one-year inspection's.
    expect(await page.locator('#accept-form').count()).toBe(0);
    expect(await page.locator('#oneyear-form').count()).toBe(1);
    // The milestone still shows flagged to the officer.
    expect(
      await page.locator('tr[data-milestone="site-clearing-complete"]').getAttribute('data-flagged'),
    ).toBe('true');

    const text = (await page.locator('#site-records').textContent()) ?? '';
    expect(text).not.toMatch(NOT_FOR_PEOPLE);
    expect(text).toContain('Final stabilization confirmed by the town');
    await screenshot(page, 'records-completion-desktop');
    expect(problems).toEqual([]);
    await page.close();
  });
});
