/**
 * Version 15: enforcement under the law of the site, served. A notice of violation and a stop-work order
 * name their law (`law`: "001" or "000", by the site's kind; null in rows stored before, which were 001's)
 * and a notice what it orders (`order_kind`: "correct", "cease-use"); a step of a notice or an order may
 * carry its details (`detail`, JSON: a service's method, party, time and the appeal's end; a hearing's
 * date and outcome). A notice stored from this version has `appeal_by` 0: its appeal window runs from its
 * first service, recorded in that step. Columns added, none changed: rows stored before keep their logged
 * form.
 */
import type { Db } from '../types.ts';

/** Adds a column unless the table has it (a store taken over into a new log runs this again). */
function addColumn(db: Db, table: string, column: string, type: string): void {
  const cols = db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>;
  if (!cols.some((c) => c.name === column)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`);
}

export function v15(db: Db): void {
  addColumn(db, 'violations', 'law', 'TEXT');
  addColumn(db, 'violations', 'order_kind', 'TEXT');
  addColumn(db, 'violation_events', 'detail', 'TEXT');
  addColumn(db, 'stop_work', 'law', 'TEXT');
  addColumn(db, 'stop_work_events', 'detail', 'TEXT');
}
