/**
 * The store's audit covers the records of enforcement: a notice of violation, its steps, a stop-work order
 * and its lifting are each checked against their log entries, so one changed behind the gateway's back (the
 * table's guard dropped, a column edited) or removed, is named with its entry.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EvidenceLog } from '../../gateway/src/store/evidenceLog.ts';
import { H, type Harness, makeEngine, T0, tempDir } from '../alerts/support.ts';
import { auditAll } from '../helpers/evidence.ts';
import { enforcementOf } from './support.ts';

const DAY = 24 * H;
let tmp: ReturnType<typeof tempDir>;
let h: Harness;
const logIdx = (table: string) =>
  (h.db.prepare(`SELECT log_idx FROM ${table} ORDER BY seq LIMIT 1`).get() as { log_idx: number }).log_idx;

beforeEach(() => {
  tmp = tempDir();
  h = makeEngine(join(tmp.dir, 'gw.db'), () => []);
  const e = enforcementOf(h).violations;
  const parties = {
    landowner: { name: 'Maple Ridge Land LLC', address: '10 Main St' },
    developer: { name: 'Ridge Builders Inc.', address: '200 Route 94' },
    address: 'Lots 1-24, Maple Ridge Road',
  };
  const { id } = e.issue(
    {
      siteId: 'site-a',
      law: '001',
      orderKind: 'correct',
      nature: 'Silt fence down for 40 ft.',
      remedy: 'Reinstall the silt fence.',
      remedyDueAt: T0 + 7 * DAY,
      penalties: 'Up to $250 a day.',
      parties: parties as never,
    },
    'Ida Inspector',
  );
  const ok = () => undefined;
  e.step(id, 'corrected', { text: 'Fence reinstalled.', by: 'Dana Developer' }, ok);
  e.step(id, 'approved', { text: 'Checked on site.', by: 'Ida Inspector' }, ok);
  e.stopWork(
    'site-a',
    {
      reason: 'Sediment leaving the site.',
      violationIds: [id],
      by: 'Ida Inspector',
      law: '001',
      parties: {},
    },
    ok,
  );
  const lifting = { note: 'Corrected and approved.', override: false, by: 'Ida Inspector', parties: {} };
  e.lift('site-a', lifting, (o) => {
    if (!o) throw new Error('no order in effect');
  });
});
afterEach(() => {
  h.engine.stop();
  h.db.close();
  tmp.cleanup();
});

describe('the audit of enforcement records', () => {
  it('finds every notice, step, order and lifting as logged', () => {
    for (const t of ['violations', 'violation_events', 'stop_work', 'stop_work_events'])
      expect((h.db.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n, t).toBeGreaterThan(0);
    expect(auditAll(h.db, new EvidenceLog(h.db)).problems).toEqual([]);
  });

  it.each([
    ['violations', 'violation', `remedy_due_at = remedy_due_at + 86400000`],
    ['violation_events', 'violation-event', `"by" = 'someone else'`],
    ['stop_work', 'stop-work', `reason = 'Nothing much.'`],
    ['stop_work_events', 'stop-work-event', 'override = 1'],
  ])('names a %s record changed after it was logged', (table, kind, set) => {
    const idx = logIdx(table);
    for (const t of h.db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?`)
      .all(table) as { name: string }[])
      h.db.exec(`DROP TRIGGER ${t.name}`);
    h.db.exec(`UPDATE ${table} SET ${set} WHERE seq = (SELECT MIN(seq) FROM ${table})`);
    expect(auditAll(h.db).problems).toEqual([
      {
        idx,
        kind,
        reason: expect.stringMatching(new RegExp(`^its ${table} record 1 was changed after it was logged$`)),
      },
    ]);
  });

  it('names a lifting removed from the store', () => {
    for (const t of h.db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'stop_work_events'`)
      .all() as { name: string }[])
      h.db.exec(`DROP TRIGGER ${t.name}`);
    const idx = logIdx('stop_work_events');
    h.db.exec('DELETE FROM stop_work_events');
    expect(auditAll(h.db).problems).toEqual([
      { idx, kind: 'stop-work-event', reason: 'its stop_work_events record 1 is missing' },
    ]);
  });
});
