/**
 * A stop-work order served (town law 001, Enforcement, B; town law 000, Section 5.030 A 7: "by written
 * notice"): by e-mail through the real SMTP test server on the site's developer and owner and the
 * landowner's own address, in the law's words, its document attached; the first delivery to each party
 * recorded as its service, a delivery the server refused serving nobody; its lifting e-mailed as a notice
 * that it is lifted, not as a service; the document in Chromium (no console error, no CSP violation) and
 * printed to PDF; a wastewater system's order in law 000's words.
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
const insp = { authorization: 'Bearer tok-insp', 'content-type': 'application/json' };
const canPrint = haveBinary('chromium') && haveBinary('pdftotext');
const LAW_001 =
  'Persons receiving a stop-work order shall be required to halt all land development activities, except those activities that address the violations leading to the stop-work order.';
const LAW_000 = 'orders all further work stopped on the wastewater treatment system';

interface Order {
  id: string;
  servedAt?: string;
  liftedAt?: string;
  services?: Array<{ method: string; party: string; servedAt: string; logIndex?: number }>;
}

describe('a stop-work order served', () => {
  let gw: TestGateway;
  let smtp: TestSmtpServer;
  let refused = 0;
  let id: string;

  beforeAll(async () => {
    smtp = await startSmtp({
      // The owner's mailbox is gone: the server refuses the address for good.
      onRcptTo(address, _session, callback) {
        if (address.address === 'gone@ridge.test') {
          refused++;
          const err = Object.assign(new Error('mailbox unavailable'), { responseCode: 550 });
          callback(err);
          return;
        }
        callback();
      },
    });
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
              { role: 'owner', name: 'Gone Owner', email: 'gone@ridge.test' },
            ],
            devices: [],
          },
          {
            id: 'oak-lane',
            name: 'Oak Lane',
            kind: 'alternative-system',
            timezone: 'America/New_York',
            landowner: { name: 'Olive Owner', address: '4 Oak Lane, Chester NY', email: 'olive@oak.test' },
            address: '4 Oak Lane, Chester NY',
            recipients: [{ role: 'officer', name: 'Ed Enforcer', email: 'eo@chester.test' }],
            devices: [],
          },
        ],
        auth: { tokens: [{ name: 'Ian Inspector', role: 'inspector', tokenSha256: sha('tok-insp') }] },
      },
      { now: () => T0 },
    );
    const r = await fetch(`${gw.httpUrl}/api/sites/maple-ridge/stop-work`, {
      method: 'POST',
      headers: insp,
      body: JSON.stringify({ reason: 'Sediment leaving the site into Maple Brook.' }),
    });
    expect(r.status).toBe(201);
    id = ((await r.json()) as Order).id;
  });
  afterAll(async () => {
    await gw?.cleanup();
    await smtp?.close();
  });

  const mails = (site: string) =>
    smtp.messages
      .map((m) => ({ to: m.to, ...parseMail(m.raw) }))
      .filter((m) => m.headers['x-gateway-event'] === 'stop-work' && m.headers.subject?.includes(site));
  const order = async (site: string, orderId: string) =>
    ((await (await fetch(`${gw.httpUrl}/api/sites/${site}/stop-work`)).json()) as Order[]).find(
      (o) => o.id === orderId,
    )!;

  it('is e-mailed to the developer and the landowner in the law’s words, its document attached', async () => {
    await waitFor(() => mails('Maple Ridge').length >= 2 || undefined, 15_000, 'two orders by e-mail');
    const sent = mails('Maple Ridge');
    expect(sent.flatMap((m) => m.to).sort()).toEqual(['dev@ridge.test', 'pat@land.test']);
    const text = sent[0]!.text;
    expect(sent[0]!.headers.subject).toBe('Stop-work order: Maple Ridge, since Jun 10, 2026, 10:00 AM EDT');
    expect(text).toContain(
      'Town of Chester, stormwater law for land development activities (law 001), Town law 001, Enforcement, B',
    );
    expect(text).toContain(LAW_001);
    expect(text).toContain('until the Town confirms that the land development activity is in compliance');
    expect(text).toContain('This message serves it, sent Jun 10, 2026, 10:00 AM EDT.');
    expect(text).toContain('Pat Landowner');
    expect(text).toContain('Ridge Builders LLC');
    expect(text).toContain('Lot 12, Maple Ridge Road');
    expect(text).toContain('Sediment leaving the site into Maple Brook.');
    expect(text).toContain(`/api/stop-work/${id}/document`);
    const doc = sent[0]!.attachments.find((a) => a.filename.endsWith('.html'));
    expect(doc?.filename).toBe('stop-work-order-maple-ridge-2026-06-10.html');
    expect(doc?.contentType).toBe('text/html');
    expect(doc?.content).toContain(LAW_001);
    expect(doc?.content).toContain('Pat Landowner');
    // The officer issued it: the order is not e-mailed to the officer (the site's duties are).
    const officer = smtp.messages.filter((m) => m.to.includes('smo@town.test')).map((m) => parseMail(m.raw));
    expect(officer.filter((m) => m.headers['x-gateway-event'] === 'stop-work')).toEqual([]);
  });

  it('records the first delivery to each party as a service, and none for the address refused', async () => {
    await waitFor(() => refused > 0 || undefined, 15_000, 'the owner’s address refused');
    const served = await waitFor(
      async () => {
        const o = await order('maple-ridge', id);
        return (o.services ?? []).length >= 2 ? o : undefined;
      },
      15_000,
      'two services by e-mail recorded',
    );
    expect(served.servedAt).toBe(new Date(T0).toISOString());
    expect((served.services ?? []).map((s) => [s.method, s.party]).sort()).toEqual([
      ['email', 'dev@ridge.test'],
      ['email', 'pat@land.test'],
    ]);
    // Each service is an entry of the evidence log.
    for (const s of served.services ?? []) expect(s.logIndex).toBeTypeOf('number');
    expect((served.services ?? []).some((s) => s.party === 'gone@ridge.test')).toBe(false);
  });

  it('serves its document, and 404 for an order that does not exist', async () => {
    const r = await fetch(`${gw.httpUrl}/api/stop-work/${id}/document`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/html');
    const html = await r.text();
    expect(html).toContain(LAW_001);
    expect(html).toContain('By e-mail on dev@ridge.test, Jun 10, 2026, 10:00 AM EDT');
    expect(html).toContain('Sediment leaving the site into Maple Brook.');
    expect((await fetch(`${gw.httpUrl}/api/stop-work/stop-none/document`)).status).toBe(404);
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

    it('opens styled, with the order, the parties and its services; no console error or CSP violation', async () => {
      const page = await browser.newPage({
        extraHTTPHeaders: VIEWER_HEADERS,
      });
      const { csp, errors } = watchPage(page);
      const res = await page.goto(`${gw.httpUrl}/api/stop-work/${id}/document`);
      expect(res?.status()).toBe(200);
      await page.waitForLoadState('load');
      expect(await page.locator('h1').textContent()).toBe('Stop-work order');
      // Its printed footer is its own title, in a style rule the page's nonce allows.
      expect(await page.locator('head style').textContent()).toContain(
        '@bottom-left{content:"Stop-work order"',
      );
      const text = await page.locator('body').textContent();
      expect(text).toContain('Ridge Builders LLC');
      expect(text).toContain('9 Main St, Chester NY');
      expect(text).toMatch(/Evidence log entry\s*\d+/);
      const border = await page
        .locator('table td')
        .first()
        .evaluate((td) => getComputedStyle(td).borderTopStyle);
      expect(border).not.toBe('none');
      expect(errors).toEqual([]);
      expect(csp).toEqual([]);
      await page.close();
    });

    it('prints to PDF with the law’s words', async () => {
      const r = await fetch(`${gw.httpUrl}/api/stop-work/${id}/document?format=pdf`);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('application/pdf');
      const dir = mkdtempSync(join(tmpdir(), 'stop-work-pdf-'));
      try {
        const file = join(dir, 'order.pdf');
        writeFileSync(file, Buffer.from(await r.arrayBuffer()));
        const text = execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
        expect(text).toContain('halt all land development activities');
        expect(text).toContain('Pat Landowner');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  it('tells the parties when it is lifted, which is no service', async () => {
    const r = await fetch(`${gw.httpUrl}/api/sites/maple-ridge/stop-work/lift`, {
      method: 'POST',
      headers: insp,
      body: JSON.stringify({ note: 'Silt fence re-installed; sediment contained.' }),
    });
    expect(r.status).toBe(200);
    await waitFor(
      () =>
        mails('Maple Ridge').filter((m) => m.headers.subject?.includes('lifted')).length >= 2 || undefined,
      15_000,
      'the lifting told by e-mail',
    );
    const lifted = mails('Maple Ridge').filter((m) => m.headers.subject?.includes('lifted'));
    expect(lifted.flatMap((m) => m.to).sort()).toEqual(['dev@ridge.test', 'pat@land.test']);
    expect(lifted[0]!.text).toContain('was lifted on Jun 10, 2026, 10:00 AM EDT by Ian Inspector');
    expect(lifted[0]!.text).toContain('Silt fence re-installed; sediment contained.');
    expect(lifted[0]!.attachments[0]?.filename).toBe('stop-work-order-maple-ridge-2026-06-10-lifted.html');
    const o = await order('maple-ridge', id);
    expect(o.liftedAt).toBeDefined();
    expect(o.services).toHaveLength(2);
  });

  it('serves a wastewater system’s order on its owner in law 000’s words', async () => {
    const r = await fetch(`${gw.httpUrl}/api/sites/oak-lane/stop-work`, {
      method: 'POST',
      headers: insp,
      body: JSON.stringify({ reason: 'Leach field installed without an approved design.' }),
    });
    expect(r.status).toBe(201);
    const orderId = ((await r.json()) as Order).id;
    await waitFor(() => mails('Oak Lane').length >= 1 || undefined, 15_000, 'the order by e-mail');
    const [mail] = mails('Oak Lane');
    expect(mail!.to).toEqual(['olive@oak.test']);
    expect(mail!.headers.subject).toContain('Stop-work order of the Enforcement Officer: Oak Lane');
    expect(mail!.text).toContain(LAW_000);
    expect(mail!.text).toContain('Section 5.030 A 7');
    expect(mail!.text).toContain('Owner: Olive Owner');
    const served = await waitFor(
      async () => {
        const o = await order('oak-lane', orderId);
        return o.servedAt ? o : undefined;
      },
      15_000,
      'the service recorded',
    );
    expect(served.services?.map((s) => s.party)).toEqual(['olive@oak.test']);
  });
});
