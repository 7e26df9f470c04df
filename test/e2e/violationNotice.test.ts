/**
 * A notice of violation served (town law 001, Enforcement, A): by e-mail through the real SMTP test
 * server to the site's developer and owner and to the landowner's own address, with the six elements of
 * the law in words and the document's link; the document itself, in Chromium with no console error and
 * no CSP violation, each element under its heading; and printed to PDF (read back with pdftotext).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, watchPage } from '../helpers/browser.ts';
import { haveBinary, waitFor } from '../helpers/env.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { VIEWER_HEADERS } from '../helpers/viewerFetch.ts';
import { parseMail, startSmtp, type TestSmtpServer } from '../notify/support.ts';

const sha = (t: string) => createHash('sha256').update(t).digest('hex');
const T0 = Date.parse('2026-06-10T14:00:00Z');
const DAY = 86_400_000;
const insp = { authorization: 'Bearer tok-insp', 'content-type': 'application/json' };
const canPrint = haveBinary('chromium') && haveBinary('pdftotext');

const ELEMENTS = [
  '1. Landowner and developer',
  '2. The land',
  '3. Nature of the violation',
  '4. Remedial measures and time schedule',
  '5. Penalties',
  '6. Appeal',
];

describe('a notice of violation served', () => {
  let gw: TestGateway;
  let smtp: TestSmtpServer;
  let id: string;
  let inspectionId: string;

  beforeAll(async () => {
    smtp = await startSmtp();
    gw = await startTestGateway(
      {
        notify: { smtp: { host: '127.0.0.1', port: smtp.port, secure: false, from: 'gw@town.test' } },
        sites: [
          {
            id: 'maple-ridge',
            name: 'Maple Ridge',
            kind: 'construction',
            timezone: 'America/New_York',
            landowner: { name: 'Pat Landowner', address: '1 Elm St, Chester NY', email: 'pat@land.test' },
            developer: { name: 'Ridge Builders LLC', address: '9 Main St, Chester NY' },
            address: 'Lot 12, Maple Ridge Road',
            recipients: [
              { role: 'officer', name: 'Sam Officer', email: 'smo@town.test' },
              { role: 'developer', name: 'Dee Developer', email: 'dev@ridge.test' },
              { role: 'owner', name: 'Olly Owner', email: 'owner@ridge.test' },
            ],
            devices: [],
          },
        ],
        auth: { tokens: [{ name: 'Ian Inspector', role: 'inspector', tokenSha256: sha('tok-insp') }] },
      },
      { now: () => T0 },
    );
    const inspection = await fetch(`${gw.httpUrl}/api/inspections`, {
      method: 'POST',
      headers: insp,
      body: JSON.stringify({
        siteId: 'maple-ridge',
        at: new Date(T0 - 3_600_000).toISOString(),
        kind: 'routine',
        inspector: 'Ian Inspector',
        notes: 'East silt fence down.',
      }),
    });
    const body = (await inspection.json()) as { inspection?: { id: string }; id?: string };
    inspectionId = (body.inspection?.id ?? body.id)!;
    const r = await fetch(`${gw.httpUrl}/api/violations`, {
      method: 'POST',
      headers: insp,
      body: JSON.stringify({
        siteId: 'maple-ridge',
        inspectionId,
        nature: 'Silt fence along the east boundary is down; sediment leaves the site.',
        remedy: 'Re-install and re-trench the silt fence along the east boundary.',
        remedyDueAt: new Date(T0 + 7 * DAY).toISOString(),
      }),
    });
    expect(r.status).toBe(201);
    id = ((await r.json()) as { id: string }).id;
  });
  afterAll(async () => {
    await gw?.cleanup();
    await smtp?.close();
  });

  const notices = () =>
    smtp.messages
      .map((m) => ({ to: m.to, ...parseMail(m.raw) }))
      .filter((m) => m.headers['x-gateway-event'] === 'violation');

  it('is e-mailed to the developer, the owner and the landowner, with the six elements and its link', async () => {
    await waitFor(() => notices().length >= 3 || undefined, 15_000, 'three notices by e-mail');
    const mails = notices();
    expect(mails.flatMap((m) => m.to).sort()).toEqual([
      'dev@ridge.test',
      'owner@ridge.test',
      'pat@land.test',
    ]);
    const text = mails[0]!.text;
    for (const heading of ELEMENTS) expect(text).toContain(heading);
    expect(text).toContain('Pat Landowner');
    expect(text).toContain('Lot 12, Maple Ridge Road');
    expect(text).toContain('To be completed by Jun 17, 2026, 10:00 AM EDT.');
    // Served by this message: the 15 days run from it, to the end of June 25 in the site's zone.
    expect(text).toContain('This message serves it, sent Jun 10, 2026, 10:00 AM EDT.');
    expect(text).toContain('within 15 days of service, by the end of June 25, 2026.');
    // The notice's document is attached, printable for mail or in person.
    const doc = mails[0]!.attachments.find((a) => a.filename.endsWith('.html'));
    expect(doc?.contentType).toBe('text/html');
    expect(doc?.content).toContain('6. Appeal');
    expect(doc?.content).toContain('Pat Landowner');
    expect(text).toContain('$250');
    expect(text).toContain(`/api/violations/${id}/document`);
    expect(mails[0]!.headers.subject).toContain('Notice of violation: Maple Ridge');
    // The first delivery is its service, recorded: the window runs from it, in the site's local days.
    const served = await waitFor(
      async () => {
        const v = (await (await fetch(`${gw.httpUrl}/api/violations/${id}`)).json()) as {
          servedAt?: string;
          appealBy?: string;
          events: Array<{ kind: string; method?: string; party?: string }>;
        };
        return v.events.filter((e) => e.kind === 'served').length >= 3 ? v : undefined;
      },
      15_000,
      'three services by e-mail recorded',
    );
    expect(served.servedAt).toBe(new Date(T0).toISOString());
    expect(served.appealBy).toBe('2026-06-26T04:00:00.000Z');
    expect(
      served.events
        .filter((e) => e.kind === 'served')
        .map((e) => [e.method, e.party])
        .sort(),
    ).toEqual([
      ['email', 'dev@ridge.test'],
      ['email', 'owner@ridge.test'],
      ['email', 'pat@land.test'],
    ]);
    // The officer hears of the remedy duty as of any duty, not with the notice itself.
    const officer = smtp.messages.filter((m) => m.to.includes('smo@town.test')).map((m) => parseMail(m.raw));
    expect(officer.every((m) => m.headers['x-gateway-event'] !== 'violation')).toBe(true);
  });

  describe.skipIf(!canPrint)('the document', () => {
    let browser: Browser;
    // biome-ignore lint/suspicious/noDuplicateTestHooks: the nested suite's own browser (biome misreads describe.skipIf)
    beforeAll(async () => {
      browser = await launchChromium();
    });
    // biome-ignore lint/suspicious/noDuplicateTestHooks: the nested suite's own browser
    afterAll(async () => {
      await browser?.close();
    });

    it('opens styled with its six elements, the inspection and the log entry; no console error or CSP violation', async () => {
      const page = await browser.newPage({
        extraHTTPHeaders: VIEWER_HEADERS,
      });
      const { csp, errors } = watchPage(page);
      const res = await page.goto(`${gw.httpUrl}/api/violations/${id}/document`);
      expect(res?.status()).toBe(200);
      await page.waitForLoadState('load');
      const headings = await page.locator('h2').allTextContents();
      expect(headings.slice(0, 6)).toEqual(ELEMENTS);
      const text = await page.locator('body').innerText();
      expect(text).toContain('Ridge Builders LLC');
      expect(text).toContain('9 Main St, Chester NY');
      expect(text).toContain('Routine inspection by Ian Inspector');
      expect(text).toContain('East silt fence down.');
      expect(text).toMatch(/Evidence log entry\s+\d+/);
      expect(text).toContain('This determination may be appealed to the Town by filing a written notice');
      const border = await page
        .locator('table td')
        .first()
        .evaluate((td) => getComputedStyle(td).borderTopStyle);
      expect(border).not.toBe('none');
      expect(errors).toEqual([]);
      expect(csp).toEqual([]);
      await page.close();
    });

    it('prints to PDF with the same elements', async () => {
      const r = await fetch(`${gw.httpUrl}/api/violations/${id}/document?format=pdf`);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('application/pdf');
      const dir = mkdtempSync(join(tmpdir(), 'nov-pdf-'));
      try {
        const file = join(dir, 'notice.pdf');
        writeFileSync(file, Buffer.from(await r.arrayBuffer()));
        const text = execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' });
        for (const heading of ELEMENTS) expect(text).toContain(heading);
        expect(text).toContain('Pat Landowner');
        expect(text).toContain('Re-install and re-trench the silt fence');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  it('is not found for a notice that does not exist', async () => {
    const r = await fetch(`${gw.httpUrl}/api/violations/nov-none/document`);
    expect(r.status).toBe(404);
  });
});
