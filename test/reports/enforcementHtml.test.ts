/**
 * The compliance report's enforcement sections as people read them, against a real gateway and store:
 * notices of violation issued, appealed, corrected (with a photo), approved on time and late, and one
 * still open; a stop-work order served by mail and lifted with an override, and one in effect at the
 * period's end. The page
 * shows the header's line, the counts in a sentence, each notice by its number with its schedule, steps,
 * standing and log entry, and the orders; a period with none says so in a line; no field ids anywhere.
 * The CSV carries a row per notice, step, order and service of an order. The days pass by restarting the gateway on the same
 * store with its clock moved (a clock jump while running is held back as a fault).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveOnReinspection } from '../helpers/approval.ts';
import { launchChromium, screenshot, watchPage } from '../helpers/browser.ts';
import { haveBinary } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { PASSWORD, peopleApi } from '../helpers/people.ts';
import { PNG_1X1 } from '../helpers/photos.ts';
import { parseCsv, textOf } from '../helpers/reportText.ts';
import { VIEWER_HEADERS } from '../helpers/viewerFetch.ts';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const DAY = 86_400_000;
/** 10 AM in Chester (EDT). */
const T0 = Date.parse('2026-06-10T14:00:00Z');
const at = (ms: number) => new Date(ms).toISOString();

describe('the report page and CSV: notices of violation and stop-work orders', () => {
  let gw: TestGateway;
  let api: ReturnType<typeof peopleApi>;
  let now = T0;
  const insp = { authorization: 'Bearer tok-insp' };
  let owner: Record<string, string>;
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-report-enf-'));
  const config = {
    sites: [
      {
        id: 'maple-ridge',
        name: 'Maple Ridge',
        kind: 'construction' as const,
        timezone: 'America/New_York',
        landowner: { name: 'Pat Landowner', address: '1 Elm St, Chester NY' },
        developer: { name: 'Ridge Builders LLC', address: '9 Main St, Chester NY' },
        address: 'Lot 12, Maple Ridge Road',
        devices: [],
      },
    ],
    auth: {
      tokens: [
        { name: 'Ada Admin', role: 'admin' as const, tokenSha256: sha('tok-admin') },
        { name: 'Ian Inspector', role: 'inspector' as const, tokenSha256: sha('tok-insp') },
      ],
    },
  };
  const startAt = async (t: number) => {
    await gw.cleanup();
    now = t;
    gw = await startTestGateway(config, { dataDir, now: () => now });
    api = peopleApi(gw.httpUrl, 'tok-admin');
    owner = (await api.signIn('dana@maple.example')).write;
  };
  const post = async (path: string, body: unknown, headers: Record<string, string>) => {
    const r = await api.call('POST', path, body, headers);
    if (r.status >= 300) throw new Error(`${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body as { id: string };
  };
  const report = async (from: string, to: string, format: string) => {
    const res = await fetch(
      `${gw.httpUrl}/api/reports/compliance?siteId=maple-ridge&from=${from}&to=${to}&format=${format}`,
    );
    expect(res.status).toBe(200);
    return res.text();
  };

  let photo = '';
  let ids: { a: string; b: string; c: string };
  let html = '';
  let csv = '';
  beforeAll(async () => {
    gw = await startTestGateway(config, { dataDir, now: () => now });
    api = peopleApi(gw.httpUrl, 'tok-admin');
    const r = await api.call(
      'POST',
      '/api/users',
      {
        name: 'Dana Developer',
        email: 'dana@maple.example',
        role: 'owner',
        password: PASSWORD,
        sites: ['maple-ridge'],
      },
      api.admin,
    );
    expect(r.status).toBe(201);
    await startAt(T0);
    const inspection = await post(
      '/api/inspections',
      {
        siteId: 'maple-ridge',
        at: at(T0 - DAY),
        kind: 'routine',
        inspector: 'Ian Inspector',
        notes: 'East fence down.',
      },
      insp,
    );
    const issue = (nature: string, days: number, more: Record<string, unknown> = {}) =>
      post(
        '/api/violations',
        {
          siteId: 'maple-ridge',
          nature,
          remedy: `Fix: ${nature}`,
          remedyDueAt: at(T0 + days * DAY),
          ...more,
        },
        insp,
      );
    const a = await issue('Silt fence along the east boundary is down.', 3, {
      inspectionId: (inspection as { inspection?: { id: string } }).inspection?.id ?? inspection.id,
    });
    const b = await issue('Inlet protection missing at the north inlet.', 10);
    const c = await issue('Concrete washout into the swale.', 2);
    ids = { a: a.id, b: b.id, c: c.id };
    const order = await post(
      '/api/sites/maple-ridge/stop-work',
      { reason: 'Sediment leaving the site.', violationId: c.id },
      insp,
    );
    await post(
      `/api/stop-work/${order.id}/service`,
      { method: 'mail', party: 'Pat Landowner', servedAt: at(T0) },
      insp,
    );

    // Day 1: the first notice appealed, corrected with a photo and approved; the order lifted anyway.
    await startAt(T0 + DAY);
    await post(`/api/violations/${a.id}/appeal`, { reason: 'The fence was hit by a storm.' }, owner);
    const up = await fetch(`${gw.httpUrl}/api/photos?siteId=maple-ridge`, {
      method: 'POST',
      headers: { ...owner, 'content-type': 'image/png' },
      body: PNG_1X1,
    });
    expect(up.status).toBe(200);
    photo = ((await up.json()) as { sha256: string }).sha256;
    await post(`/api/violations/${a.id}/corrected`, { note: 'Fence re-installed.', photos: [photo] }, owner);
    const onTime = await approveOnReinspection(gw.httpUrl, a.id, insp, {
      siteId: 'maple-ridge',
      at: at(T0 + DAY),
      note: 'Seen on site.',
    });
    expect(onTime.status).toBe(200);
    await post(
      '/api/sites/maple-ridge/stop-work/lift',
      { note: 'Lifted for the emergency repair.', override: true },
      insp,
    );

    // Day 4: the washout approved late; a new order on the open notice stays in effect.
    await startAt(T0 + 4 * DAY);
    await post(`/api/violations/${c.id}/corrected`, { note: 'Washout cleaned up.' }, owner);
    const late = await approveOnReinspection(gw.httpUrl, c.id, insp, {
      siteId: 'maple-ridge',
      at: at(T0 + 4 * DAY),
    });
    expect(late.status).toBe(200);
    await post(
      '/api/sites/maple-ridge/stop-work',
      { reason: 'Inlet still unprotected.', violationId: b.id },
      insp,
    );

    await startAt(T0 + 5 * DAY);
    html = await report('2026-06-01', '2026-06-30', 'html');
    csv = await report('2026-06-01', '2026-06-30', 'csv');
  });
  afterAll(async () => {
    await gw?.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('says in the header that work is stopped, and counts the notices in words', () => {
    const text = textOf(html);
    const head = html.slice(html.indexOf('<header'), html.indexOf('</header>'));
    expect(textOf(head)).toContain(
      'Under a stop-work order since Jun 14, 2026, 10:00 AM EDT: Inlet still unprotected.',
    );
    expect(text).toContain(
      '3 notices of violation issued; 1 remedied on time, 1 late, 1 open; 2 stop-work orders in effect during the period.',
    );
  });

  it('lists each notice by its number, with its schedule, steps, standing and log entry', async () => {
    const text = textOf(html);
    const sections = text.slice(
      text.indexOf('Notices of violation Town law'),
      text.indexOf('Evidence Every record'),
    );
    expect(sections).toContain('Stop-work orders');
    for (const n of [1, 2, 3]) expect(sections).toContain(`Notice of violation no. ${n}`);
    expect(sections).toContain('Issued Jun 10, 2026, 10:00 AM EDT, by Ian Inspector');
    expect(sections).toContain('Nature of the violation Silt fence along the east boundary is down.');
    expect(sections).toContain('Remedy required Fix: Silt fence along the east boundary is down.');
    expect(sections).toContain('Remedy due Jun 13, 2026, 10:00 AM EDT');
    // Nothing was delivered (no e-mail configured) and no service recorded: its window has not started.
    expect(sections).toContain('Served not yet served');
    expect(sections).toContain('Appeal Not yet served; the appeal window has not started.');
    expect(sections).toContain(
      'Follows the inspection Routine inspection of Jun 9, 2026, 10:00 AM EDT, by Ian Inspector',
    );
    expect(sections).toContain(
      'Appealed Jun 11, 2026, 10:00 AM EDT Dana Developer The fence was hit by a storm.',
    );
    expect(sections).toContain(
      'Correction reported Jun 11, 2026, 10:00 AM EDT Dana Developer Fence re-installed.',
    );
    expect(sections).toContain(`Photo (SHA-256): ${photo.slice(0, 12)}…`);
    expect(html).not.toContain(photo);
    expect(sections).toContain(
      'Correction approved by the officer Jun 11, 2026, 10:00 AM EDT Ian Inspector On the re-inspection of Jun 11, 2026, 10:00 AM EDT by Ian Inspector. Seen on site.',
    );
    expect(sections).toContain(
      'Standing Approved Jun 11, 2026, 10:00 AM EDT, on time; appealed Jun 11, 2026, 10:00 AM EDT',
    );
    expect(sections).toContain('Standing Approved Jun 14, 2026, 10:00 AM EDT, late');
    expect(sections).toContain('Standing Open, remedy due Jun 20, 2026, 10:00 AM EDT');
    // Each notice and step cited by its log entry, the same as its JSON says.
    const json = JSON.parse(await report('2026-06-01', '2026-06-30', 'json')) as {
      violations: Array<{ siteSeq: number; logIndex: number; events: Array<{ logIndex: number }> }>;
      stopWork: Array<{ logIndex: number; liftLogIndex?: number }>;
    };
    expect(json.violations.map((v) => v.siteSeq)).toEqual([1, 2, 3]);
    for (const v of json.violations) {
      expect(sections).toContain(`Cited log entry ${v.logIndex}`);
      for (const e of v.events) expect(sections).toContain(`log entry ${e.logIndex}`);
    }
    for (const o of json.stopWork) expect(sections).toContain(`log entry ${o.logIndex}`);
    expect(sections).toContain(`its lifting: log entry ${json.stopWork[0]!.liftLogIndex}`);
  });

  it('lists the stop-work orders: since, why, the notice named, lifted with an override or in effect', () => {
    const text = textOf(html);
    const orders = text.slice(text.indexOf('Stop-work orders Since'), text.indexOf('Evidence Every record'));
    expect(orders).toContain(
      'Jun 10, 2026, 10:00 AM EDT Sediment leaving the site. Notice of violation no. 3 Ian Inspector By mail on Pat Landowner, Jun 10, 2026, 10:00 AM EDT Jun 11, 2026, 10:00 AM EDT, by Ian Inspector Lifted for the emergency repair. Yes Lifted Jun 11, 2026, 10:00 AM EDT by Ian Inspector, with an override',
    );
    expect(orders).toContain(
      'Jun 14, 2026, 10:00 AM EDT Inlet still unprotected. Notice of violation no. 2 Ian Inspector Not yet served Not lifted — In effect since Jun 14, 2026, 10:00 AM EDT',
    );
    expect(orders).toMatch(/a service: log entry \d+/);
  });

  it('shows no field ids or codes', () => {
    const text = textOf(html);
    for (const id of [
      'remedyDueAt',
      'siteSeq',
      'appealBy',
      'issuedBy',
      'violationIds',
      'liftedAt',
      'liftNote',
      'stopWork',
      'onTime',
      'undefined',
      'null',
      ids.a,
      ids.b,
      ids.c,
    ])
      expect(text).not.toContain(id);
    expect(html).not.toMatch(/remedyDueAt|siteSeq|stopWorkInEffect|violationIds/);
  });

  it('the CSV has a row per notice, per step and per order', () => {
    const rows = parseCsv(csv);
    expect(rows[0]).toEqual([
      'section',
      'id',
      'rule',
      'device',
      'began',
      'due',
      'done',
      'status',
      'detail',
      'inspection',
      'practice',
      'photos',
      'signed by',
    ]);
    expect(rows.every((r) => r.length === 13)).toBe(true);
    const v = rows.filter((r) => r[0] === 'violation');
    expect(v.map((r) => [r[1], r[2], r[4], r[5], r[6], r[7]])).toEqual([
      [ids.a, 'approved', at(T0), at(T0 + 3 * DAY), at(T0 + DAY), 'on-time'],
      [ids.b, 'issued', at(T0), at(T0 + 10 * DAY), '', 'open'],
      [ids.c, 'approved', at(T0), at(T0 + 2 * DAY), at(T0 + 4 * DAY), 'late'],
    ]);
    expect(v[0]![8]).toMatch(
      /^no\. 1, issued by Ian Inspector: Silt fence along the east boundary is down\.; remedy: /,
    );
    const steps = rows.filter((r) => r[0] === 'violation-step');
    expect(steps.map((r) => [r[1], r[2], r[4]])).toEqual([
      [ids.a, 'appealed', at(T0 + DAY)],
      [ids.a, 'corrected', at(T0 + DAY)],
      [ids.a, 'approved', at(T0 + DAY)],
      [ids.c, 'corrected', at(T0 + 4 * DAY)],
      [ids.c, 'approved', at(T0 + 4 * DAY)],
    ]);
    // The approval names the re-inspection it rests on.
    expect(steps[2]![8]).toMatch(
      new RegExp(
        `^Ian Inspector: Seen on site\\.; on re-inspection \\S+ of ${at(T0 + DAY)} by Ian Inspector \\(log entry \\d+\\)$`,
      ),
    );
    expect(steps[1]![8]).toContain(`Dana Developer: Fence re-installed.; photos ${photo}`);
    const orders = rows.filter((r) => r[0] === 'stop-work');
    expect(orders.map((r) => [r[4], r[6], r[7]])).toEqual([
      [at(T0), at(T0 + DAY), 'lifted-override'],
      [at(T0 + 4 * DAY), '', 'in-effect'],
    ]);
    expect(orders[0]![8]).toContain(
      `no. 1, issued by Ian Inspector: Sediment leaving the site.; notices ${ids.c}`,
    );
    expect(orders[0]![8]).toContain('lifted by Ian Inspector: Lifted for the emergency repair.');
    expect(orders[0]![8]).toContain(`first served ${at(T0)}`);
    const services = rows.filter((r) => r[0] === 'stop-work-service');
    expect(services.map((r) => [r[2], r[4]])).toEqual([['mail', at(T0)]]);
    expect(services[0]![8]).toMatch(
      /^served by mail on Pat Landowner, recorded by Ian Inspector \(log entry \d+\)$/,
    );
  });

  it('a period with none says so in one line each', async () => {
    const may = await report('2026-05-01', '2026-05-31', 'html');
    const text = textOf(may);
    expect(text).toContain('No notice of violation was in force in this period.');
    expect(text).toContain('No stop-work order was in effect in this period.');
    expect(text).toContain(
      '0 notices of violation issued; 0 remedied on time, 0 late, 0 open; 0 stop-work orders in effect during the period.',
    );
    expect(may).not.toContain('Under a stop-work order');
    const mayCsv = parseCsv(await report('2026-05-01', '2026-05-31', 'csv'));
    expect(mayCsv.filter((r) => ['violation', 'violation-step', 'stop-work'].includes(r[0]!))).toEqual([]);
  });
  it.skipIf(!haveBinary('chromium'))('opens in Chromium with no console error or CSP violation', async () => {
    const browser = await launchChromium();
    try {
      // Reads need a token: the page is opened as the test gateway's viewer.
      const page = await browser.newPage({
        viewport: { width: 1200, height: 900 },
        extraHTTPHeaders: VIEWER_HEADERS,
      });
      const { csp, errors } = watchPage(page);
      const res = await page.goto(
        `${gw.httpUrl}/api/reports/compliance?siteId=maple-ridge&from=2026-06-01&to=2026-06-30&format=html`,
      );
      expect(res?.status()).toBe(200);
      await page.waitForLoadState('load');
      // The header's line stands out: the served stylesheet gives it its border.
      const line = page.locator('header .stop-work');
      await expect.poll(() => line.count()).toBe(1);
      expect(await line.evaluate((p) => getComputedStyle(p).borderTopStyle)).toBe('solid');
      expect(await page.locator('section.enforcement h3').allTextContents()).toEqual([
        'Notice of violation no. 1',
        'Notice of violation no. 2',
        'Notice of violation no. 3',
      ]);
      await screenshot(page, 'report-enforcement-header', false);
      await page.locator('section.enforcement h2').first().scrollIntoViewIfNeeded();
      await screenshot(page, 'report-enforcement', false);
      await page.locator('section.enforcement h2').last().scrollIntoViewIfNeeded();
      await screenshot(page, 'report-stop-work', false);
      expect(errors).toEqual([]);
      expect(csp).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it.skipIf(!haveBinary('chromium') || !haveBinary('pdftotext'))(
    'prints to PDF with the header line and the sections',
    async () => {
      const res = await fetch(
        `${gw.httpUrl}/api/reports/compliance?siteId=maple-ridge&from=2026-06-01&to=2026-06-30&format=pdf`,
      );
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/pdf');
      const file = join(dataDir, 'report.pdf');
      writeFileSync(file, Buffer.from(await res.arrayBuffer()));
      const text = execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
      expect(text).toContain('Under a stop-work order since Jun 14, 2026');
      expect(text).toContain('Notices of violation');
      expect(text).toContain('Notice of violation no. 3');
      expect(text).toContain('Stop-work orders');
      expect(text).toContain('3 notices of violation issued; 1 remedied on time, 1 late, 1 open');
    },
  );

  it('a notice past its remedy time when the report is made is overdue', async () => {
    await startAt(T0 + 12 * DAY);
    const text = textOf(await report('2026-06-01', '2026-06-30', 'html'));
    expect(text).toContain('Standing Overdue, remedy due Jun 20, 2026, 10:00 AM EDT');
    const rows = parseCsv(await report('2026-06-01', '2026-06-30', 'csv'));
    expect(rows.find((r) => r[1] === ids.b && r[0] === 'violation')?.[7]).toBe('overdue');
  });
});
