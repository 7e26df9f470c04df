/**
 * Milestone notices in the compliance report, against a real gateway: the JSON, the page and the CSV
 * list each notice of the period with when it was filed, the milestone's time and "on time" or "late
 * (filed 20 h before)"; the report verifies; a copy of the report with a notice changed, and a new report
 * made from a copy of the store whose notice was edited, are refused with the notice named.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readReport, verifyReport } from '../../gateway/src/verifier/verify.ts';
import { startTestGateway, type TestGateway } from '../helpers/gateway.ts';
import { checkpointedReport, sha256 } from '../helpers/reports.ts';

const TOKEN = 'notices-report-admin';
const H = 3_600_000;
const config = {
  auth: { tokens: [{ name: 'Ada Admin', role: 'admin' as const, tokenSha256: sha256(TOKEN) }] },
  evidence: { checkpointIntervalSeconds: 1 },
} as never;

interface Notice {
  milestone: string;
  label: string;
  filedAt: string;
  at: string;
  late: boolean;
  standing: string;
  logIndex: number;
}

describe('milestone notices in the compliance report', () => {
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
  /** The report once a checkpoint covers the whole log. */
  const report = (g: TestGateway, format = 'json') =>
    checkpointedReport(g.httpUrl, `siteId=maple-ridge&from=2020-01-01&to=${to}&format=${format}`);

  beforeAll(async () => {
    gw = await startTestGateway(config);
    const now = Date.now();
    to = new Date(now + 5 * 24 * H).toISOString().slice(0, 10);
    // Half an hour over the whole hours: the seconds the request takes do not change the hours shown.
    await call(gw, '/api/notices', {
      siteId: 'maple-ridge',
      milestone: 'rough-grading-complete',
      at: new Date(now + 50.5 * H).toISOString(),
    });
    await call(gw, '/api/notices', {
      siteId: 'maple-ridge',
      milestone: 'final-grading-complete',
      at: new Date(now + 20.5 * H).toISOString(),
    });
    key = (await call<{ verifierKey: string }>(gw, '/api/evidence/key')).verifierKey;
    text = await report(gw);
  });
  afterAll(async () => {
    await gw?.cleanup();
  });

  it('lists the notices, on time and late, and the report verifies', async () => {
    const r = JSON.parse(text) as { notices: Notice[]; summary: Record<string, number> };
    expect(r.notices.map((n) => [n.label, n.late, n.standing])).toEqual([
      ['Completion of final grading', true, 'late (filed 20 h before)'],
      ['Completion of rough grading', false, 'on time'],
    ]);
    expect([r.summary.noticesOnTime, r.summary.noticesLate]).toEqual([1, 1]);
    const v = await verifyReport(readReport(JSON.parse(text)), key);
    expect(v.problems).toEqual([]);
    expect(v.checked.notices).toBe(2);
    expect((JSON.parse(text) as { evidence: { audit: { ok: boolean } } }).evidence.audit.ok).toBe(true);
    const html = await report(gw, 'html');
    expect(html).toContain('Milestone notices (48 hours before)');
    expect(html).toContain('late (filed 20 h before)');
    expect(html).toContain('Completion of rough grading');
    const csv = await report(gw, 'csv');
    expect(csv).toMatch(/^notice,notice-[^,]+,final-grading-complete,.*,late,/m);
  });

  it('names a notice changed in a copy of the report', async () => {
    const r = readReport(JSON.parse(text));
    const n = (r as unknown as { notices: Notice[] }).notices[0]!;
    n.filedAt = new Date(Date.parse(n.filedAt) - 40 * H).toISOString();
    n.late = false;
    const v = await verifyReport(r, key);
    expect(v.ok).toBe(false);
    const fields = v.problems.map((p) => p.field);
    expect(fields).toContain('notices[0].filedAt');
    expect(fields).toContain('notices[0].late');
    expect(v.problems.find((p) => p.field === 'notices[0].filedAt')?.message).toContain(
      'The milestone notice "Completion of final grading"',
    );
  });

  it('names a notice edited in a copy of the store', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'gw-notices-copy-'));
    try {
      cpSync(gw.dataDir, copy, { recursive: true });
      const db = new Database(join(copy, 'gateway.db'));
      db.exec('DROP TRIGGER notices_no_update');
      db.exec(
        "UPDATE notices SET late = 0, filed_by = 'Someone Else' WHERE milestone = 'final-grading-complete'",
      );
      db.close();
      const other = await startTestGateway(config, { dataDir: copy });
      try {
        const tampered = await report(other);
        // The gateway's audit found the edited row, and the report says so first.
        expect((JSON.parse(tampered) as { warnings: string[] }).warnings.length).toBeGreaterThan(0);
        const v = await verifyReport(readReport(JSON.parse(tampered)), key);
        expect(v.ok).toBe(false);
        const messages = v.problems.map((p) => `${p.field}: ${p.message}`).join('\n');
        expect(messages).toContain('notices[0].filedBy');
        expect(messages).toContain('Someone Else');
      } finally {
        await other.cleanup();
      }
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
  it('names the gap a notice removed from a copy of the store leaves, though the proof holds', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'gw-notices-gone-'));
    try {
      cpSync(gw.dataDir, copy, { recursive: true });
      const db = new Database(join(copy, 'gateway.db'));
      db.exec('DROP TRIGGER IF EXISTS notices_no_delete');
      db.exec("DELETE FROM notices WHERE milestone = 'rough-grading-complete'");
      db.close();
      const other = await startTestGateway(config, { dataDir: copy });
      try {
        const v = await verifyReport(readReport(JSON.parse(await report(other))), key);
        expect(v.ok).toBe(false);
        expect(v.problems.map((p) => `${p.field}: ${p.message}`)).toContain(
          'notices: The milestone notices of maple-ridge in the report skip one: milestone notice no. 2 comes in place 1, so one before it is missing from the report',
        );
      } finally {
        await other.cleanup();
      }
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
