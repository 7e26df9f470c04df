/**
 * Notices of violation and stop-work orders in Chromium, against a real gateway, at a desktop and a phone
 * size: an inspector issues a notice from Maple Ridge's page (the due time entered in the site's zone,
 * the browser in another) and it is listed with its appeal date; the inspector orders work stopped and
 * the order shows on the overview's card and on the site's page, with "Print the order" (its document,
 * opened in a new tab) and its service in person listed in the site's zone; the site's owner appeals (and, with the
 * browser's clock past the 15 days, is told why no more) and reports it corrected; the inspector is
 * refused a lift while the notice is open (and offered the override), approves, and lifts the order.
 * No console error, no blocked resource, no API code or notice id in the text (screenshots
 * violation-form-desktop, violations-site-phone, stop-work-overview-desktop, stop-work-site-phone).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reinspect } from '../helpers/approval.ts';
import { launchChromium, screenshot, watchCsp } from '../helpers/browser.ts';
import { haveBinary } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { PASSWORD, peopleApi, sha } from '../helpers/people.ts';

const ADMIN_TOKEN = 'enforcement-admin-token';
const DAY = 86_400_000;
const TZ = 'America/New_York';
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1366, height: 900 };

type Notice = { id: string; status: string; remedyDueAt: string; appealBy?: string; events: unknown[] };

/** The last day of a window in New York, as the notice writes it ("the end of December 22, 2026"). */
const endOfNyDay = (deadline: string) =>
  `the end of ${new Intl.DateTimeFormat('en-US', { timeZone: TZ, month: 'long', day: 'numeric', year: 'numeric' }).format(new Date(Date.parse(deadline) - 1))}`;

/** A day in New York, as the dashboard writes it ("Dec 17"). */
const nyDay = (t: string | number) =>
  new Intl.DateTimeFormat('en-US', { timeZone: TZ, month: 'short', day: 'numeric' }).format(new Date(t));

describe.skipIf(!haveBinary('chromium'))('notices of violation and stop-work orders', () => {
  let gw: TestGateway;
  let browser: Browser;
  const api = (path: string) =>
    fetch(`${gw.httpUrl}${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }).then(
      (r) => r.json() as Promise<unknown>,
    );
  const notices = () => api('/api/violations?siteId=maple-ridge') as Promise<Notice[]>;

  beforeAll(async () => {
    gw = await startTestGateway({
      sites: [
        {
          id: 'maple-ridge',
          name: 'Maple Ridge',
          kind: 'construction',
          timezone: TZ,
          landowner: { name: 'Rita Landis', address: '12 Orchard Lane, Chester NY 10918' },
          developer: { name: 'Maple Ridge Homes LLC', address: '400 Main Street, Goshen NY 10924' },
          address: 'Lots 4-9, Maple Ridge Road',
          practices: [{ id: 'fence-n', label: 'Silt fence, north boundary', kind: 'silt-fence' }],
          devices: [],
        },
      ],
      auth: { tokens: [{ name: 'Ada Admin', role: 'admin', tokenSha256: sha(ADMIN_TOKEN) }] },
    });
    const people = peopleApi(gw.httpUrl, ADMIN_TOKEN);
    await people.account('Pat Inspector', 'pat@town.example', 'inspector');
    await people.account('Ada Officer', 'ada@town.example', 'admin');
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

  async function signedIn(email: string, size: { width: number; height: number }, clockAhead = 0) {
    const page = await browser.newPage({ viewport: size, timezoneId: 'America/Chicago' });
    if (clockAhead) await page.clock.setFixedTime(Date.now() + clockAhead);
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
    return { page, problems };
  }

  const sitePage = async (page: Page) => {
    await page.evaluate(() => {
      location.hash = '#/site/maple-ridge';
    });
    await page.locator('#site-enforcement .parties').waitFor();
  };

  /** What the page says, without the ids of notices or the API's codes. */
  async function plainWords(page: Page) {
    // biome-ignore lint/performance/useDomNodeTextContent: the words shown, not those of hidden views
    const text = await page.locator('main').innerText();
    for (const n of await notices()) expect(text).not.toContain(n.id);
    expect(text).not.toMatch(/\b[A-Z]{2,}_[A-Z_]+\b|undefined|null|NaN|\[object/);
    return text;
  }

  it("an admin edits the site's landowner with the site's edit form", async () => {
    const { page, problems } = await signedIn('ada@town.example', DESKTOP);
    await sitePage(page);
    await page.click('#parties-edit');
    await page.locator('#site-edit').waitFor();
    await page.click('#site-edit details[data-group^="Landowner"] summary');
    expect(await page.inputValue('#site-edit-landowner-name')).toBe('Rita Landis');
    await page.fill('#site-edit-landowner-email', 'rita@orchard.example');
    await page.click('#site-edit button[type="submit"]');
    await page.waitForFunction(() =>
      document.querySelector('[data-party="landowner"]')?.textContent?.includes('rita@orchard.example'),
    );
    const site = (await api('/api/sites/maple-ridge')) as { landowner?: { email?: string; name: string } };
    expect(site.landowner).toMatchObject({ name: 'Rita Landis', email: 'rita@orchard.example' });
    expect(problems).toEqual([]);
    await page.close();
  });

  it("an admin lists the town accounts that inspect for the developer with the site's edit form", async () => {
    const { page, problems } = await signedIn('ada@town.example', DESKTOP);
    await sitePage(page);
    await page.click('#parties-edit');
    await page.locator('#site-edit').waitFor();
    await page.click('#site-edit details[data-group^="Inspectors acting"] summary');
    // The list on record, one a line; two people added, one on a line of its own, one after a comma.
    const field = '#site-edit-developerInspectors';
    const before = ((await api('/api/sites/maple-ridge')) as { developerInspectors?: string[] })
      .developerInspectors;
    expect(before?.length).toBeGreaterThan(0);
    expect((await page.inputValue(field)).split('\n')).toEqual(before);
    await page.fill(field, `${before!.join('\n')}\nuna@town.example, ivy@hired.example`);
    await page.click('#site-edit button[type="submit"]');
    await page.locator('#site-edit').waitFor({ state: 'hidden' });
    const site = (await api('/api/sites/maple-ridge')) as { developerInspectors?: string[] };
    expect(site.developerInspectors).toEqual([...before!, 'una@town.example', 'ivy@hired.example']);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('an inspector issues a notice from the site page, in the site time zone, at 1366x900', async () => {
    const { page, problems } = await signedIn('pat@town.example', DESKTOP);
    await sitePage(page);
    const parties = await page.locator('#site-enforcement .parties').textContent();
    expect(parties).toContain('Rita Landis');
    expect(parties).toContain('Maple Ridge Homes LLC');
    expect(parties).toContain('Lots 4-9, Maple Ridge Road');
    expect(await page.locator('#parties-edit').count()).toBe(0);
    expect(await page.locator('#site-enforcement').textContent()).toContain('No notices of violation.');

    await page.click('.violation-form summary');
    expect(await page.inputValue('#v-penalties')).toMatch(/^A violation of this article is punishable/);
    await page.fill('#v-nature', 'Silt fence along the north swale is down; sediment reaches the road.');
    await page.fill('#v-remedy', 'Reset and trench the silt fence; sweep the road.');
    // 3 days ahead at 5:00 PM in New York, whatever the browser's own zone (Chicago).
    const day = new Intl.DateTimeFormat('en-CA', { timeZone: TZ }).format(new Date(Date.now() + 3 * DAY));
    await page.fill('#v-due', `${day}T17:00`);
    await screenshot(page, 'violation-form-desktop');
    await page.click('#violation-form button[type="submit"]');
    await page.locator('#site-enforcement .violation').waitFor();

    const [notice, ...more] = await notices();
    expect(more).toEqual([]);
    expect(notice).toMatchObject({ status: 'issued' });
    const local = new Intl.DateTimeFormat('en-US', { timeZone: TZ, hour: 'numeric', minute: '2-digit' });
    expect(local.format(new Date(notice!.remedyDueAt))).toBe('5:00 PM');
    expect(await page.locator('#enforcement-result').textContent()).toMatch(
      /^Notice issued, remedy due \w{3} \d+, \d{4}, 5:00 PM E[SD]T\. It is sent by e-mail to the parties on file; the 15 days to appeal start when it is served\.$/,
    );
    const item = page.locator('#site-enforcement .violation');
    const words = await item.textContent();
    expect(words).toContain('Issued');
    // Nothing was delivered (no e-mail here): its window has not started.
    expect(words).toContain('Not yet served; the appeal window has not started.');
    expect(words).toMatch(/Remedy due .*5:00 PM E[SD]T \(in (2|3) days\)/);
    expect(words).toContain('Issued by Pat Inspector');
    expect(await item.locator('a', { hasText: 'The notice' }).getAttribute('href')).toMatch(/\/document$/);
    // The notice itself opens beside the page, as the gateway serves it.
    const [doc] = await Promise.all([
      page.context().waitForEvent('page'),
      item.locator('a', { hasText: 'The notice' }).click(),
    ]);
    const docProblems: string[] = [];
    watchCsp(doc, docProblems);
    await doc.waitForLoadState('load');
    const docText = await doc.locator('body').textContent();
    expect(docText).toContain('Silt fence along the north swale is down');
    expect(docText).toContain('Rita Landis');
    expect(docProblems).toEqual([]);
    await doc.close();
    // Nothing to approve before a correction is reported; appealing is the owner's.
    expect(await item.locator('summary', { hasText: 'Approve' }).count()).toBe(0);
    expect(await item.locator('.violation-no-approve').textContent()).toBe(
      'Approval is offered once the owner or contractor reports the correction.',
    );
    expect(await item.locator('summary', { hasText: 'Appeal' }).count()).toBe(0);
    await plainWords(page);
    expect(problems).toEqual([]);
    await page.close();
    // Served by hand now (the officer's record): the 15 days run from it.
    const served = await fetch(`${gw.httpUrl}/api/violations/${notice!.id}/service`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'in-person', party: 'Rita Landis', servedAt: new Date().toISOString() }),
    });
    expect(served.status).toBe(200);
  });

  it('the inspector orders work stopped: the site page and the overview card say so', async () => {
    const { page, problems } = await signedIn('pat@town.example', DESKTOP);
    await sitePage(page);
    await page.click('#site-stop-work summary');
    const choices = await page.locator('#sw-notice option').allTextContents();
    expect(choices).toEqual(['None', expect.stringMatching(/^Notice of \w{3} \d+: Silt fence/)]);
    await page.selectOption('#sw-notice', { index: 1 });
    await page.fill('#stop-work-form-text', 'Sediment leaves the site at the north swale.');
    await page.click('#stop-work-form button[type="submit"]');
    await page.locator('#site-stop-work .stop-work-banner').waitFor();
    const today = nyDay(Date.now());
    expect(await page.locator('#site-stop-work .stop-work-banner').textContent()).toBe(
      `Stop-work order since ${today}: Sediment leaves the site at the north swale. · Print the order`,
    );
    expect(await page.locator('#enforcement-result').textContent()).toMatch(
      /^Work is ordered stopped since /,
    );
    expect(await page.locator('#site-stop-work .stop-work-served').textContent()).toMatch(/^Not yet served/);
    // Served in person (the officer's record): the site page lists the service, how, on whom, when.
    const [order] = (await api('/api/sites/maple-ridge/stop-work')) as Array<{ id: string }>;
    const servedAt = new Date(Math.floor(Date.now() / 60_000) * 60_000).toISOString();
    const served = await fetch(`${gw.httpUrl}/api/stop-work/${order!.id}/service`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'in-person', party: 'Rita Landis', servedAt }),
    });
    expect(served.status).toBe(200);
    await page.reload();
    await page.locator('#site-stop-work .stop-work-services li').waitFor();
    const services = await page.locator('#site-stop-work .stop-work-services li').allTextContents();
    expect(services).toHaveLength(1);
    // In the site's zone (New York), not the browser's (Chicago).
    expect(services[0]).toMatch(/^In person on Rita Landis, \w{3} \d+, \d{4}, \d+:\d{2} [AP]M E[SD]T\.$/);
    expect(services[0]).toContain(nyDay(servedAt));
    // "Print the order" opens the order's document in a new tab.
    const [doc] = await Promise.all([
      page.waitForEvent('popup'),
      page.click('#site-stop-work [data-stop-work-document]'),
    ]);
    await doc.waitForLoadState('load');
    expect(await doc.locator('h1').textContent()).toBe('Stop-work order');
    expect(await doc.locator('body').textContent()).toContain('Rita Landis');
    await doc.close();
    await page.evaluate(() => {
      location.hash = '#/overview';
    });
    const banner = page.locator('#overview-body [data-site="maple-ridge"] .stop-work-banner');
    await banner.waitFor();
    expect(await banner.textContent()).toBe(
      `Stop-work order since ${today}: Sediment leaves the site at the north swale. · Print the order`,
    );
    expect(await banner.locator('a').getAttribute('href')).toBe(`/api/stop-work/${order!.id}/document`);
    await screenshot(page, 'stop-work-overview-desktop');
    await plainWords(page);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('the owner is told why the appeal window is closed once the 15 days are past', async () => {
    const { page, problems } = await signedIn('dana@maple.example', PHONE, 16 * DAY);
    await sitePage(page);
    const item = page.locator('#site-enforcement .violation');
    await item.waitFor();
    const [notice] = await notices();
    expect(await item.locator('summary', { hasText: 'Appeal' }).count()).toBe(0);
    expect(await item.textContent()).toContain(
      `It can no longer be appealed: the 15 days to appeal ended at ${endOfNyDay(notice!.appealBy!)}.`,
    );
    expect(await item.textContent()).toContain('The appeal window is closed.');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('the owner appeals and reports it corrected, at 390x844', async () => {
    const { page, problems } = await signedIn('dana@maple.example', PHONE);
    await sitePage(page);
    expect(await page.locator('#site-stop-work .stop-work-banner').count()).toBe(1);
    // The owner neither orders work stopped nor lifts an order, nor issues notices.
    expect(await page.locator('#stop-work-lift, #stop-work-form, #violation-form').count()).toBe(0);
    const item = page.locator('#site-enforcement .violation');
    await item.locator('summary', { hasText: 'Appeal' }).click();
    await item.locator('textarea[id^="appeal-"]').fill('The fence was reset the morning of the inspection.');
    await item.locator('form[id^="appeal-"] button[type="submit"]').click();
    await page.waitForFunction(() =>
      document.querySelector('#enforcement-result')?.textContent?.includes('appeal is filed'),
    );
    let [notice] = await notices();
    expect(notice!.status).toBe('appealed');
    expect(await page.locator('#site-enforcement .violation').textContent()).toContain(
      `Appealed ${nyDay(Date.now())} to the Town.`,
    );
    expect(await page.locator('#site-enforcement .violation summary', { hasText: 'Appeal' }).count()).toBe(0);

    await page.locator('#site-enforcement .violation summary', { hasText: 'Report corrected' }).click();
    await page.locator('textarea[id^="corrected-"]').fill('Fence reset and trenched, road swept.');
    await page.locator('form[id^="corrected-"] button[type="submit"]').click();
    await page.waitForFunction(() =>
      document.querySelector('#enforcement-result')?.textContent?.startsWith('Reported corrected'),
    );
    [notice] = await notices();
    expect(notice!.status).toBe('corrected');
    expect(await page.locator('#site-enforcement .violation').textContent()).toContain(
      'Corrected, awaiting approval',
    );
    await screenshot(page, 'violations-site-phone');
    await plainWords(page);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('the inspector is offered the override, approves, and lifts the order, at 390x844', async () => {
    // The re-inspection the approval rests on, made after the correction was reported.
    await reinspect(gw.httpUrl, { authorization: `Bearer ${ADMIN_TOKEN}` }, 'maple-ridge', {
      at: new Date().toISOString(),
      inspector: 'Pat Inspector',
    });
    const { page, problems } = await signedIn('pat@town.example', PHONE);
    await sitePage(page);
    await page.click('#site-stop-work summary');
    await page.fill('#stop-work-lift-text', 'Fence in place.');
    await page.click('#stop-work-lift button[type="submit"]');
    const override = page.locator('#stop-work-override');
    await override.waitFor();
    expect(await override.textContent()).toBe('Lift anyway (recorded as an override)');
    expect(await page.locator('#stop-work-lift-result').textContent()).toMatch(/not approved/);
    // The browser logs the refusal the test asked for itself: no problem of the page.
    const refused = problems.findIndex((p) => p.includes('responded with a status of 409'));
    expect(refused).toBeGreaterThanOrEqual(0);
    problems.splice(refused, 1);
    await screenshot(page, 'stop-work-site-phone');
    await plainWords(page);

    const item = page.locator('#site-enforcement .violation');
    await item.locator('summary', { hasText: 'Approve' }).click();
    expect(await item.locator('select[id^="approve-"] option').allTextContents()).toEqual([
      expect.stringMatching(/^\w{3} \d+, \d{4}, \d+:\d{2} [AP]M E[SD]T, other inspection by Pat Inspector$/),
    ]);
    await item.locator('form[id^="approve-"] button[type="submit"]').click();
    await page.waitForFunction(() =>
      document.querySelector('#enforcement-result')?.textContent?.startsWith('The notice is approved'),
    );
    const [notice] = await notices();
    expect(notice!.status).toBe('approved');
    expect(await page.locator('#site-enforcement .violation').textContent()).toMatch(
      /Approved[\s\S]*Remedy was due .*; approved \w{3} \d+, on time\./,
    );

    await page.click('#site-stop-work summary');
    await page.fill('#stop-work-lift-text', 'Inspected: the site complies.');
    await page.click('#stop-work-lift button[type="submit"]');
    await page.waitForFunction(() =>
      document.querySelector('#enforcement-result')?.textContent?.startsWith('The order is lifted'),
    );
    expect(await page.locator('#site-stop-work .stop-work-banner').count()).toBe(0);
    await page.evaluate(() => {
      location.hash = '#/overview';
    });
    await page.locator('#overview-body [data-site="maple-ridge"]').waitFor();
    await page.waitForFunction(
      () => !document.querySelector('#overview-body [data-site="maple-ridge"] .stop-work-banner'),
    );
    const orders = (await api('/api/sites/maple-ridge/stop-work')) as Array<{
      liftedAt?: string;
      override?: boolean;
    }>;
    expect(orders).toHaveLength(1);
    expect(orders[0]!.liftedAt).toBeDefined();
    expect(orders[0]!.override ?? false).toBe(false);
    await plainWords(page);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('a violation found at an inspection halts work: the overview card and the site page say so', async () => {
    const recorded = await peopleApi(gw.httpUrl, ADMIN_TOKEN).call(
      'POST',
      '/api/inspections',
      {
        siteId: 'maple-ridge',
        at: new Date(Date.now() - 60_000).toISOString(),
        inspector: 'Pat Inspector',
        kind: 'routine',
        side: 'developer',
        findings: [{ practice: 'fence-n', status: 'violation', note: 'Fence down.', photos: [] }],
      },
      { authorization: `Bearer ${ADMIN_TOKEN}` },
    );
    expect(recorded.status).toBe(201);
    const { page, problems } = await signedIn('pat@town.example', DESKTOP);
    const words = `Work halted except site stabilization since ${nyDay(Date.now())}: a violation found at Silt fence, north boundary is not yet corrected and approved.`;
    const card = page.locator('#overview-body [data-site="maple-ridge"] [data-work-halted]');
    await card.waitFor();
    expect(await card.textContent()).toBe(words);
    await sitePage(page);
    const onPage = page.locator('#site-stop-work [data-work-halted]');
    await onPage.waitFor();
    expect(await onPage.textContent()).toBe(words);
    await plainWords(page);
    expect(problems).toEqual([]);
    await page.close();
  });
});
