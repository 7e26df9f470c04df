/**
 * The records of a release-0.1.0 store, read for the evidence log in each table's order and put in the
 * form the log serialises (`ledger/records.ts`).
 */

import type { Reading } from '../../../../shared/src/telemetry.ts';
import { extensionRecord, historyRecord, inspectionRecord } from '../../ledger/records.ts';
import { rowToReading } from '../readings.ts';
import { unloggedStorms } from '../stormRecords.ts';
import type { Db } from '../types.ts';

type Row = Record<string, unknown>;

export function legacyRecords(db: Db) {
  const n = (t: string) =>
    (db.prepare(`SELECT COUNT(*) AS n FROM ${t} WHERE log_idx IS NULL`).get() as { n: number }).n;
  const count = ['readings', 'alert_history', 'inspections', 'extensions', 'storms'].reduce(
    (a, t) => a + n(t),
    0,
  );
  const alertOf = db.prepare<[string], { siteId: string; rule: string }>(
    'SELECT site_id AS siteId, rule FROM alerts WHERE id = ?',
  );
  const of = (alertId: string) => alertOf.get(alertId) ?? { siteId: '', rule: '' };
  const rows = (sql: string) => db.prepare<[], Row>(sql).all();
  return {
    count,
    /** In pages, so the caller may write between them (a connection cannot while it reads a query). */
    *readings(): Generator<Reading & { id: number }> {
      const page = db.prepare<[number], Row>(
        'SELECT * FROM readings WHERE log_idx IS NULL AND id > ? ORDER BY id LIMIT 5000',
      );
      for (let rows = page.all(0); rows.length; rows = page.all(rows.at(-1)!.id as number))
        for (const r of rows) yield rowToReading(r);
    },
    history: () =>
      rows('SELECT * FROM alert_history WHERE log_idx IS NULL ORDER BY seq').map((h) => ({
        ref: String(h.seq),
        record: historyRecord(h as never, of(h.alert_id as string)),
      })),
    inspections: () =>
      rows('SELECT * FROM inspections WHERE log_idx IS NULL ORDER BY seq').map((i) => ({
        ref: String(i.seq),
        record: inspectionRecord(i as never),
      })),
    extensions: () =>
      rows('SELECT * FROM extensions WHERE log_idx IS NULL ORDER BY seq').map((e) => ({
        ref: String(e.seq),
        record: extensionRecord(e as never, of(e.alert_id as string)),
      })),
    storms: () => unloggedStorms(db),
  };
}
