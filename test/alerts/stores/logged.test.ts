import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../gateway/src/ledger/canonical.ts';
import { leafHash } from '../../../gateway/src/ledger/merkle.ts';
import { historyRecord, recordBody } from '../../../gateway/src/ledger/records.ts';
import type { Effect } from '../../../gateway/src/rules/types.ts';
import { EvidenceLog } from '../../../gateway/src/store/evidenceLog.ts';
import { auditAll } from '../../helpers/evidence.ts';
import { completeInput } from '../../helpers/inspections.ts';
import { H, type Harness, makeEngine, reading, scripted, T0, tempDir } from '../support.ts';

let tmp: ReturnType<typeof tempDir>;
let h: Harness;
const queue: Effect[][] = [];
type Row = Record<string, unknown>;
const logIdx = (table: string, seq: number) =>
  (h.db.prepare(`SELECT log_idx FROM ${table} WHERE seq = ?`).get(seq) as { log_idx: number }).log_idx;

beforeEach(() => {
  tmp = tempDir();
  const ev = scripted('equipment-remedy', (input) => (input.type === 'reading' ? (queue.shift() ?? []) : []));
  h = makeEngine(join(tmp.dir, 'gw.db'), (site) => (site.id === 'site-a' ? [{ evaluator: ev }] : []));
  // a few alerts with several history rows each
  for (let i = 0; i < 3; i++) {
    queue.push([
      {
        type: 'open',
        rule: 'equipment-remedy',
        siteId: 'site-a',
        key: `pump-${i}`,
        at: T0 + i * H,
        dueAt: T0 + i * H + 5 * 24 * H,
        message: 'pump fault',
        evidence: { alarm: 'pump' },
      },
    ]);
    h.engine.handleReadings([reading('site-a', 'panel-1', T0 + i * H, { levelIn: 1 })]);
  }
  const [first] = h.engine.listAlerts();
  h.engine.acknowledge(first!.id, 'owner');
  h.engine.extend(first!.id, 'eng', { newDueAt: T0 + 20 * 24 * H, engineer: 'P. Eng', letterRef: 'L-9' });
  h.engine.recordInspection(
    completeInput({ siteId: 'site-a', at: T0, inspector: 'I. Spector', kind: 'routine' }),
    'insp',
  );
});

afterEach(() => {
  if (h.db.open) h.db.close();
  tmp.cleanup();
});

describe('append-only evidence, each row logged', () => {
  it('rejects UPDATE and DELETE on alert_history, inspections and extensions', () => {
    for (const table of ['alert_history', 'inspections', 'extensions']) {
      expect(() => h.db.prepare(`UPDATE ${table} SET hash = 'x'`).run(), table).toThrow(/append-only/);
      expect(() => h.db.prepare(`DELETE FROM ${table}`).run(), table).toThrow(/append-only/);
    }
    expect((h.db.prepare('SELECT COUNT(*) AS n FROM alert_history').get() as { n: number }).n).toBe(5);
  });

  it('gives a new history entry, inspection and extension no chain hash, only its log entry', () => {
    const log = new EvidenceLog(h.db);
    for (const [table, kind] of [
      ['alert_history', 'alert-history'],
      ['inspections', 'inspection'],
      ['extensions', 'extension'],
    ] as const) {
      const rows = h.db.prepare(`SELECT * FROM ${table} ORDER BY seq`).all() as Row[];
      expect(rows.length, table).toBeGreaterThan(0);
      for (const row of rows) {
        // Not linked to the row before it: its hash is its entry's leaf, and the entry logs this row.
        expect(row.prev_hash, table).toBe('');
        const entry = log.entry(row.log_idx as number)!;
        expect(entry, table).toMatchObject({ kind, ref: String(row.seq) });
        expect(row.hash, table).toBe(entry.leaf.toString('hex'));
        expect(leafHash(entry.body!).equals(entry.leaf), table).toBe(true);
      }
    }
    expect(auditAll(h.db, log)).toMatchObject({ problems: [] });
  });

  it('the audit of the log detects an altered history entry or inspection', () => {
    h.db.exec('DROP TRIGGER alert_history_no_update');
    h.db.prepare(`UPDATE alert_history SET actor = 'someone-else' WHERE seq = 3`).run();
    const idx = logIdx('alert_history', 3);
    expect(auditAll(h.db).problems).toEqual([
      { idx, kind: 'alert-history', reason: 'its alert_history record 3 was changed after it was logged' },
    ]);
    h.db.exec('DROP TRIGGER inspections_no_update');
    h.db.prepare(`UPDATE inspections SET notes = 'all fine' WHERE seq = 1`).run();
    expect(auditAll(h.db).problems.map((p) => p.kind)).toEqual(['alert-history', 'inspection']);
  });

  it('the audit of the log detects a removed row', () => {
    const idx = logIdx('alert_history', 2);
    h.db.exec('DROP TRIGGER alert_history_no_delete');
    h.db.prepare('DELETE FROM alert_history WHERE seq = 2').run();
    expect(auditAll(h.db).problems).toEqual([
      { idx, kind: 'alert-history', reason: 'its alert_history record 2 is missing' },
    ]);
  });

  it('a forged row with a matching own hash is still not the record its entry logged', () => {
    h.db.exec('DROP TRIGGER alert_history_no_update');
    const detail = canonicalJson({ forged: true });
    const forged = { ...(h.db.prepare('SELECT * FROM alert_history WHERE seq = 2').get() as Row), detail };
    const body = recordBody('alert-history', historyRecord(forged as never, { siteId: 'site-a', rule: 'x' }));
    h.db
      .prepare('UPDATE alert_history SET detail = ?, hash = ? WHERE seq = 2')
      .run(detail, leafHash(body).toString('hex'));
    expect(auditAll(h.db).problems).toMatchObject([
      { idx: logIdx('alert_history', 2), kind: 'alert-history' },
    ]);
  });

  it('reopening the store restores dropped triggers', () => {
    h.db.exec('DROP TRIGGER alert_history_no_update');
    const h2 = makeEngine(join(tmp.dir, 'gw.db'), () => []);
    expect(() => h2.db.prepare(`UPDATE alert_history SET actor = 'x'`).run()).toThrow(/append-only/);
    h2.db.close();
  });
});
