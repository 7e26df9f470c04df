/**
 * The verifier's checks of notices of violation and stop-work orders, on a real report of a real gateway
 * (its clock moved by restarting it on the same store): three notices issued on a day of June, five days
 * later the first corrected with a photo and approved on time, the second approved late, the third
 * appealed; an order naming the third served in person and lifted with an override, one naming the first lifted without, and a
 * third order in effect at the period's end. The report verifies; copies of it changed one way each (a
 * remedy due, a step taken out, on time flipped, a notice taken out, a notice renumbered, a lifting's
 * override, an order's service changed or left out, a count) are each refused with the notice or order named in words, as is a report made from
 * a copy of the store with a notice taken out; the reports of shorter periods verify; and verify.html
 * says the same of one change in real Chromium.
 */
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildVerifyPage } from '../../gateway/src/api/verifyPage.ts';
import { type ReportJson, readReport, verifyReport } from '../../gateway/src/verifier/verify.ts';
import { approveOnReinspection } from '../helpers/approval.ts';
import { launchChromium, watchCsp } from '../helpers/browser.ts';
import { haveBinary } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { PNG_1X1 } from '../helpers/photos.ts';
import { checkpointedReport } from '../helpers/reports.ts';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const DAY = 86_400_000;
const T0 = Date.parse('2026-06-10T14:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const NATURES = [
  'Silt fence along the east boundary is down; sediment leaves the site.',
  'Inlet protection missing at the north inlet.',
  'Concrete washout into the swale.',
];

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
  evidence: { checkpointIntervalSeconds: 1 },
};

type Violation = NonNullable<ReportJson['violations']>[number];

describe('the verifier and the notices of violation and stop-work orders of a report', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-verify-enf-'));
  let gw: TestGateway | undefined;
  let base = T0;
  let realStart = Date.now();
  let key = '';
  let text = '';
  const ids: string[] = [];

  /** (Re)starts the gateway on the store with its clock at `t`, running on from there. */
  const startAt = async (t: number) => {
    await gw?.cleanup();
    [base, realStart] = [t, Date.now()];
    gw = await startTestGateway(config, { dataDir, now: () => base + (Date.now() - realStart) });
  };
  const call = async <T = Record<string, unknown>>(
    path: string,
    body?: unknown,
    token = 'tok-insp',
  ): Promise<T> => {
    const res = await fetch(`${gw!.httpUrl}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };

  /** The report of the days `from` to `to`, once a checkpoint covers the whole log. */
  const reportOf = (g: TestGateway, from: string, to: string): Promise<string> =>
    checkpointedReport(g.httpUrl, `siteId=maple-ridge&from=${from}&to=${to}&format=json`, {
      authorization: 'Bearer tok-admin',
    });

  beforeAll(async () => {
    await startAt(T0);
    for (const [nature, days] of [
      [NATURES[0]!, 10],
      [NATURES[1]!, 3],
      [NATURES[2]!, 30],
    ] as const) {
      const v = await call<{ id: string }>('/api/violations', {
        siteId: 'maple-ridge',
        nature,
        remedy: 'Put it right as the plan shows.',
        remedyDueAt: iso(T0 + days * DAY),
      });
      ids.push(v.id);
    }
    const first = await call<{ id: string }>('/api/sites/maple-ridge/stop-work', {
      reason: 'Washout into the swale.',
      violationId: ids[2],
    });
    await call(`/api/stop-work/${first.id}/service`, {
      method: 'in-person',
      party: 'Pat Landowner',
      servedAt: iso(T0),
      note: 'Handed over at the gate.',
    });

    await startAt(T0 + 5 * DAY);
    const up = await fetch(`${gw!.httpUrl}/api/photos?siteId=maple-ridge`, {
      method: 'POST',
      headers: { authorization: 'Bearer tok-admin', 'content-type': 'image/png' },
      body: PNG_1X1,
    });
    if (!up.ok) throw new Error(`photo: ${up.status} ${await up.text()}`);
    const photo = ((await up.json()) as { sha256: string }).sha256;
    // Each correction reported, then approved on a re-inspection made after it.
    const officer = { authorization: 'Bearer tok-insp' };
    for (const [n, note, approval] of [
      [0, 'Fence re-trenched.', 'Seen on site.'],
      [1, 'Inlet protected.', undefined],
    ] as const) {
      const corrected = await call<{ events: { at: string }[] }>(
        `/api/violations/${ids[n]}/corrected`,
        { note, photos: n === 0 ? [photo] : [] },
        'tok-admin',
      );
      const approved = await approveOnReinspection(gw!.httpUrl, ids[n]!, officer, {
        siteId: 'maple-ridge',
        at: corrected.events.at(-1)!.at,
        ...(approval ? { note: approval } : {}),
      });
      if (approved.status !== 200) throw new Error(`approve: ${JSON.stringify(approved.body)}`);
    }
    await call(
      `/api/violations/${ids[2]}/appeal`,
      { reason: 'The washout is the neighbour’s.' },
      'tok-admin',
    );
    await call('/api/sites/maple-ridge/stop-work/lift', {
      note: 'For the emergency repair.',
      override: true,
    });
    await call('/api/sites/maple-ridge/stop-work', { reason: 'Fence down again.', violationId: ids[0] });
    await call('/api/sites/maple-ridge/stop-work/lift', { note: 'Compliant.' });
    await call('/api/sites/maple-ridge/stop-work', { reason: 'Washout again.', violationId: ids[2] });

    key = (await call<{ verifierKey: string }>('/api/evidence/key')).verifierKey;
    text = await reportOf(gw!, '2026-06-01', '2026-06-30');
  }, 120_000);
  afterAll(async () => {
    await gw?.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const copy = () => readReport(JSON.parse(text));
  const notice = (r: ReportJson, n: number): Violation => r.violations!.find((v) => v.id === ids[n])!;
  const at = (r: ReportJson, n: number) => r.violations!.findIndex((v) => v.id === ids[n]);
  /** The problems of a copy, as `field: message` lines. */
  const problems = async (r: ReportJson) =>
    (await verifyReport(r, key)).problems.map((p) => `${p.field}: ${p.message}`);

  it('lists them as they happened, and the report verifies', async () => {
    const r = copy();
    expect(r.violations!.map((v) => [v.nature, v.status, v.onTime, v.events.map((e) => e.kind)])).toEqual([
      [NATURES[0], 'approved', true, ['corrected', 'approved']],
      [NATURES[1], 'approved', false, ['corrected', 'approved']],
      [NATURES[2], 'appealed', undefined, ['appealed']],
    ]);
    expect(r.stopWork!.map((o) => [o.reason, o.override ?? false, o.liftedAt !== undefined])).toEqual([
      ['Washout into the swale.', true, true],
      ['Fence down again.', false, true],
      ['Washout again.', false, false],
    ]);
    expect(r.stopWorkInEffect?.id).toBe(r.stopWork![2]!.id);
    // Each approval names its re-inspection, as its log entry does.
    const approval = notice(r, 0).events[1]!;
    expect(approval).toMatchObject({ kind: 'approved', inspectedBy: 'Ian Inspector' });
    const entry = r.evidence.entries.find((e) => e.index === approval.logIndex)!;
    expect(JSON.parse(entry.body)).toMatchObject({
      kind: 'approved',
      inspectionId: approval.inspectionId,
      inspectedAt: Date.parse(approval.inspectedAt!),
      inspectedBy: 'Ian Inspector',
    });
    const v = await verifyReport(r, key);
    expect(v.problems).toEqual([]);
    expect([v.checked.violations, v.checked.stopWork]).toEqual([3, 3]);
  });

  it('names an approval shown resting on another re-inspection', async () => {
    const r = copy();
    const approval = notice(r, 0).events[1]!;
    const logged = approval.inspectionId;
    approval.inspectionId = 'insp-elsewhere';
    expect(await problems(r)).toEqual([
      `violations[${at(r, 0)}].events[1].inspectionId: The notice of violation no. 1 of Maple Ridge: the officer's approval of Jun 15, 2026, 10:00 AM EDT: the re-inspection it rests on is not what its log entry says (the report shows "insp-elsewhere", the log entry "${logged}")`,
    ]);
  });

  it('verifies the reports of the days before the steps and of the days after the first two approvals', async () => {
    const before = readReport(JSON.parse(await reportOf(gw!, '2026-06-01', '2026-06-14')));
    expect(before.violations!.map((v) => [v.status, v.events.length])).toEqual([
      ['issued', 0],
      ['issued', 0],
      ['issued', 0],
    ]);
    expect([before.stopWork!.length, before.stopWorkInEffect?.id]).toEqual([1, before.stopWork![0]!.id]);
    expect(await problems(before)).toEqual([]);
    const after = readReport(JSON.parse(await reportOf(gw!, '2026-06-16', '2026-06-30')));
    expect(after.violations!.map((v) => v.id)).toEqual([ids[2]]);
    expect(after.stopWork!.map((o) => o.reason)).toEqual(['Washout again.']);
    expect(await problems(after)).toEqual([]);
  });

  it('names the gap a notice taken out of a copy of the store leaves', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-verify-enf-copy-'));
    try {
      cpSync(dataDir, dir, { recursive: true });
      const db = new Database(join(dir, 'gateway.db'));
      db.exec('DROP TRIGGER violations_no_delete; DROP TRIGGER violation_events_no_delete');
      db.prepare('DELETE FROM violation_events WHERE violation_id = ?').run(ids[1]);
      db.prepare('DELETE FROM violations WHERE id = ?').run(ids[1]);
      db.close();
      const other = await startTestGateway(config, {
        dataDir: dir,
        now: () => base + (Date.now() - realStart),
      });
      try {
        const r = readReport(JSON.parse(await reportOf(other, '2026-06-01', '2026-06-30')));
        expect(r.violations!.map((v) => v.id)).toEqual([ids[0], ids[2]]);
        expect(await problems(r)).toContain(
          'violations: The notices of violation of Maple Ridge in the report skip one: notice of violation no. 3 comes in place 2, so one before it is missing from the report',
        );
      } finally {
        await other.cleanup();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names a notice whose remedy due was changed', async () => {
    const r = copy();
    notice(r, 0).remedyDueAt = iso(T0 + 20 * DAY);
    expect(await problems(r)).toEqual([
      `violations[${at(r, 0)}].remedyDueAt: The notice of violation no. 1 of Maple Ridge: its remedy due is not what its log entry says (the report shows Jun 30, 2026, 10:00 AM EDT, the log entry Jun 20, 2026, 10:00 AM EDT)`,
    ]);
  });

  it('names a notice directed to another developer, and a correction with another photo', async () => {
    const r = copy();
    const n = notice(r, 0);
    n.developer = { name: 'Someone Else LLC', address: '9 Main St, Chester NY' };
    n.events[0]!.photos = ['b'.repeat(64)];
    const i = at(r, 0);
    expect(await problems(r)).toEqual([
      `violations[${i}].developer: The notice of violation no. 1 of Maple Ridge: the developer it is directed to is not what its log entry says (the report shows "Someone Else LLC, 9 Main St, Chester NY", the log entry "Ridge Builders LLC, 9 Main St, Chester NY")`,
      `violations[${i}].events[0].photos: The notice of violation no. 1 of Maple Ridge: a correction of Jun 15, 2026, 10:00 AM EDT: the list of its photos (their fingerprints) is not what its log entry says (the report shows the fingerprint ${'b'.repeat(12)}…, the log entry the fingerprint ${createHash('sha256').update(PNG_1X1).digest('hex').slice(0, 12)}…)`,
    ]);
  });

  it('names every notice of the period when the report has no list of them', async () => {
    const r = copy();
    delete r.violations;
    const found = await problems(r);
    expect(
      found.filter((p) => /^violations: The notice of violation no\. \d of Maple Ridge, issued/.test(p)),
    ).toHaveLength(3);
    expect(found).toContain(
      'summary.violationsIssued: The summary gives 3 for the notices of violation issued, but its list of them counts 0',
    );
  });

  it('names a notice whose correction was taken out of its steps', async () => {
    const r = copy();
    notice(r, 0).events = notice(r, 0).events.filter((e) => e.kind !== 'corrected');
    const found = await problems(r);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(
      new RegExp(
        `^violations\\[${at(r, 0)}\\]\\.events: The notice of violation no\\. 1 of Maple Ridge: a correction of Jun 15, 2026, 10:00 AM EDT by Ada Admin is logged \\(log entry \\d+\\) but the report does not list it$`,
      ),
    );
  });

  it('names a notice approved late that the report says was corrected on time (and the counts)', async () => {
    const r = copy();
    notice(r, 1).onTime = true;
    const found = await problems(r);
    expect(found[0]).toMatch(
      /^violations\[1\]\.onTime: The notice of violation no\. 2 of Maple Ridge: approved Jun 15, 2026, 10:00 AM EDT with its remedy due Jun 13, 2026, 10:00 AM EDT, it was corrected late, but the report says on time$/,
    );
    expect(found.slice(1)).toEqual([
      'summary.violationsOnTime: The summary gives 1 for the notices of violation corrected on time, but its list of them counts 2',
      'summary.violationsLate: The summary gives 1 for the notices of violation corrected late, but its list of them counts 0',
    ]);
  });

  it('names a notice of the period the report does not list', async () => {
    const r = copy();
    r.violations = r.violations!.filter((v) => v.id !== ids[1]);
    r.summary.violationsIssued = 2;
    r.summary.violationsLate = 0;
    const found = await problems(r);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(
      /^violations: The notice of violation no\. 2 of Maple Ridge, issued Jun 10, 2026, 10:00 AM EDT \(log entry \d+\), is in the report's period but the report does not list it$/,
    );
  });

  it('names a gap in the numbering of the notices', async () => {
    const r = copy();
    const entry = r.evidence.entries.find(
      (e) => e.kind === 'violation' && (JSON.parse(e.body) as { id: string }).id === ids[1],
    )!;
    entry.body = entry.body.replace('"siteSeq":2', '"siteSeq":3');
    const found = await problems(r);
    expect(found).toContain(
      'violations: The notices of violation of Maple Ridge in the report skip one: notice of violation no. 3 comes in place 2, so one before it is missing from the report',
    );
    // The entry no longer matches its fingerprint in the log either.
    expect(found.some((p) => /was changed: it does not match its fingerprint/.test(p))).toBe(true);
  });

  it('names an order lifted with an override that the report shows lifted without one', async () => {
    const r = copy();
    delete r.stopWork![0]!.override;
    expect(await problems(r)).toEqual([
      'stopWork[0].override: The stop-work order no. 1 of Maple Ridge: whether it was lifted with an override is not what its log entry says (the report shows no, the log entry yes)',
      'stopWork[0].override: The stop-work order no. 1 of Maple Ridge: it was lifted Jun 15, 2026, 10:00 AM EDT without an override, but the notice of violation no. 3 of Maple Ridge it names was not approved before then',
    ]);
  });

  it('lists an order’s service, and names one changed, left out or cited from its lifting', async () => {
    const shown = copy().stopWork![0]!;
    expect(shown.servedAt).toBe(iso(T0));
    expect(shown.services!.map((x) => [x.method, x.party, x.servedAt, x.by, x.note])).toEqual([
      ['in-person', 'Pat Landowner', iso(T0), 'Ian Inspector', 'Handed over at the gate.'],
    ]);
    const changed = copy();
    changed.stopWork![0]!.services![0]!.party = 'Someone Else';
    expect(await problems(changed)).toEqual([
      'stopWork[0].services[0].party: The stop-work order no. 1 of Maple Ridge: its service on Someone Else of Jun 10, 2026, 10:00 AM EDT: on whom it was served is not what its log entry says (the report shows "Someone Else", the log entry "Pat Landowner")',
    ]);
    const left = copy();
    left.stopWork![0]!.services = [];
    const found = await problems(left);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(
      /^stopWork\[0\]\.services: The stop-work order no\. 1 of Maple Ridge: its service on Pat Landowner of Jun 10, 2026, 10:00 AM EDT is logged \(log entry \d+\) but the report does not list it$/,
    );
    const moved = copy();
    moved.stopWork![0]!.servedAt = iso(T0 + DAY);
    expect(await problems(moved)).toEqual([
      'stopWork[0].servedAt: The stop-work order no. 1 of Maple Ridge: the report gives its first service as Jun 11, 2026, 10:00 AM EDT, but its logged services make it Jun 10, 2026, 10:00 AM EDT',
    ]);
    const lifting = copy();
    const o = lifting.stopWork![0]!;
    o.services![0]!.logIndex = o.liftLogIndex;
    expect((await problems(lifting)).some((p) => /is its lifted step, not a service$/.test(p))).toBe(true);
  });

  it('names an order shown in effect whose lifting is logged, and the order in effect at the end', async () => {
    const r = copy();
    const o = r.stopWork![1]!;
    for (const k of ['liftedAt', 'liftedBy', 'liftNote', 'liftLogIndex'] as const) delete o[k];
    const found = await problems(r);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(
      /^stopWork\[1\]\.liftedAt: The stop-work order no\. 2 of Maple Ridge: the report shows it in effect, but its lifting Jun 15, 2026, 10:00 AM EDT by Ian Inspector is logged \(log entry \d+\)$/,
    );
    const none = copy();
    delete none.stopWorkInEffect;
    expect(await problems(none)).toEqual([
      "stopWorkInEffect: The report names no stop-work order in effect at the period's end, but the stop-work order no. 3 of Maple Ridge was not lifted by then",
    ]);
  });

  it('names a count that is not what the lists give', async () => {
    const r = copy();
    r.summary.violationsOpen = 0;
    r.summary.stopWorkOrders = 1;
    expect(await problems(r)).toEqual([
      'summary.violationsOpen: The summary gives 0 for the notices of violation not yet approved, but its list of them counts 1',
      'summary.stopWorkOrders: The summary gives 1 for the stop-work orders in effect in the period, but its list of them counts 3',
    ]);
  });

  it.skipIf(!haveBinary('chromium'))(
    'verify.html checks them too: the real report, and the changed remedy due',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'verify-enf-page-'));
      const browser = await launchChromium();
      try {
        writeFileSync(join(dir, 'verify.html'), (await buildVerifyPage()).html);
        const r = copy();
        notice(r, 0).remedyDueAt = iso(T0 + 20 * DAY);
        writeFileSync(join(dir, 'report.json'), JSON.stringify(r));
        const page = await (await browser.newContext({ offline: true })).newPage();
        const errors: string[] = [];
        const blocked: string[] = [];
        page.on('console', (m) => {
          if (m.type() === 'error') errors.push(m.text());
        });
        page.on('pageerror', (e) => errors.push(e.message));
        watchCsp(page, blocked);
        const check = async (file: string) => {
          await page.goto(pathToFileURL(join(dir, 'verify.html')).href);
          await page.fill('#key', key);
          await page.setInputFiles('#file', join(dir, file));
          await page.click('button[type=submit]');
          await page.waitForSelector('#verdict.ok, #verdict.bad');
          return page.textContent('#verdict strong');
        };
        writeFileSync(join(dir, 'real.json'), text);
        expect(await check('real.json')).toBe('Verified');
        expect((await page.locator('#checked-list li').allTextContents()).join('\n')).toContain(
          '3 notices of violation and 3 stop-work orders, each as logged.',
        );
        expect(await check('report.json')).toBe('Not verified');
        expect(await page.locator('#problems code.field').allTextContents()).toEqual([
          `violations[${at(r, 0)}].remedyDueAt`,
        ]);
        expect(await page.locator('#problems li').first().textContent()).toContain(
          'The notice of violation no. 1 of Maple Ridge: its remedy due is not what its log entry says',
        );
        expect([errors, blocked]).toEqual([[], []]);
      } finally {
        await browser.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
