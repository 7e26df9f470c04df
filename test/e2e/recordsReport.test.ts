/**
 * The developer's records in the compliance report, against a real gateway: the JSON, the page and the
 * CSV list each record on file (a contractor's certification, the SWPPP on site, an expected milestone,
 * the final stabilization and the town's confirmation of it) with what it says; the report verifies; a copy of the report with a certification's statement or its
 * signer changed is refused with the record named; a record removed from a copy of the store leaves a gap
 * the verifier names.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readReport, verifyReport } from '../../gateway/src/verifier/verify.ts';
import { CERTIFICATION_STATEMENT } from '../../shared/src/api/siteRecords.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { checkpointedReport, sha256 } from '../helpers/reports.ts';

const TOKEN = 'records-report-admin';
const DAY = 86_400_000;
const config = {
  auth: { tokens: [{ name: 'Ada Admin', role: 'admin' as const, tokenSha256: sha256(TOKEN) }] },
  evidence: { checkpointIntervalSeconds: 1 },
} as never;

interface Rec {
  kind: string;
  summary: string;
  body: Record<string, unknown>;
  logIndex: number;
  siteSeq: number;
}

describe("the developer's records in the compliance report", () => {
  let gw: TestGateway;
  let key: string;
  let text: string;
  let to: string;
  const call = async <T>(g: TestGateway, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${g.httpUrl}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const report = (g: TestGateway, format = 'json') =>
    checkpointedReport(g.httpUrl, `siteId=maple-ridge&from=2020-01-01&to=${to}&format=${format}`);

  beforeAll(async () => {
    gw = await startTestGateway(config);
    const now = Date.now();
    to = new Date(now + 5 * DAY).toISOString().slice(0, 10);
    const post = (body: unknown) => call<unknown>(gw, '/api/sites/maple-ridge/records', body);
    await post({
      kind: 'certification',
      statement: CERTIFICATION_STATEMENT,
      name: 'Jane Roe',
      title: 'Superintendent',
      firm: 'Acme Excavating Inc.',
      firmAddress: '12 Quarry Rd, Chester NY',
      telephone: '845-555-0142',
      siteAddress: 'Lot 12, Maple Ridge Road',
      signedAt: new Date(now - DAY).toISOString(),
    });
    await post({
      kind: 'swppp',
      since: new Date(now - DAY).toISOString(),
      keptBy: 'Jane Roe',
      where: 'the trailer',
    });
    await post({
      kind: 'expected-milestone',
      milestone: 'rough-grading-complete',
      expectedAt: new Date(now + 3 * DAY).toISOString(),
    });
    const stabilized = await post({
      kind: 'final-stabilization',
      stabilizedAt: new Date(now - 3_600_000).toISOString(),
      description: 'Permanent grass on all disturbed areas.',
    });
    await post({
      kind: 'stabilization-confirmation',
      confirms: (stabilized as { id: string }).id,
      confirmedAt: new Date(now - 60_000).toISOString(),
      note: 'Seen on site.',
    });
    key = (await call<{ verifierKey: string }>(gw, '/api/evidence/key')).verifierKey;
    text = await report(gw);
  });
  afterAll(async () => {
    await gw?.cleanup();
  });

  it('lists the records on file with what they say, and the report verifies', async () => {
    const r = JSON.parse(text) as { records: Rec[] };
    expect(r.records.map((x) => [x.siteSeq, x.kind, x.summary])).toEqual([
      [
        1,
        'certification',
        'Jane Roe, Superintendent, Acme Excavating Inc. (12 Quarry Rd, Chester NY; 845-555-0142)',
      ],
      [2, 'swppp', 'kept by Jane Roe, the trailer'],
      [3, 'expected-milestone', 'Completion of rough grading'],
      [4, 'final-stabilization', 'Permanent grass on all disturbed areas.'],
      [5, 'stabilization-confirmation', 'the final stabilization confirmed: Seen on site.'],
    ]);
    const v = await verifyReport(readReport(JSON.parse(text)), key);
    expect(v.problems).toEqual([]);
    expect(v.checked.records).toBe(5);
    const html = await report(gw, 'html');
    expect(html).toContain("<h2>The developer's records on file</h2>");
    expect(html).toContain('Contractor&#39;s certification');
    expect(html).toContain('Final stabilization confirmed by the town');
    const csv = await report(gw, 'csv');
    expect(csv).toMatch(/^record,record-[^,]+,certification,.*,on-file,/m);
  });

  it('names a certification whose signer or statement was changed in a copy of the report', async () => {
    const r = readReport(JSON.parse(text));
    const c = (r as unknown as { records: Rec[] }).records[0]!;
    c.body = { ...c.body, name: 'Someone Else' };
    const v = await verifyReport(r, key);
    expect(v.ok).toBe(false);
    const p = v.problems.find((x) => x.field === 'records[0].body');
    expect(p?.message).toContain("The developer's record (certification)");
  });

  it('names the gap a record removed from a copy of the store leaves', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'gw-records-gone-'));
    try {
      cpSync(gw.dataDir, copy, { recursive: true });
      const db = new Database(join(copy, 'gateway.db'));
      db.exec('DROP TRIGGER IF EXISTS site_records_no_delete');
      db.exec("DELETE FROM site_records WHERE kind = 'swppp'");
      db.close();
      const other = await startTestGateway(config, { dataDir: copy });
      try {
        const v = await verifyReport(readReport(JSON.parse(await report(other))), key);
        expect(v.ok).toBe(false);
        const messages = v.problems.map((p) => `${p.field}: ${p.message}`).join('\n');
        expect(messages).toContain(
          "records: The developer's records of maple-ridge in the report skip one: developer's record no. 3 comes in place 2, so one before it is missing from the report",
        );
      } finally {
        await other.cleanup();
      }
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
