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

export function v15(db: Db): void {
  db.exec(`
ALTER TABLE violations ADD COLUMN law TEXT;
ALTER TABLE violations ADD COLUMN order_kind TEXT;
ALTER TABLE violation_events ADD COLUMN detail TEXT;
ALTER TABLE stop_work ADD COLUMN law TEXT;
ALTER TABLE stop_work_events ADD COLUMN detail TEXT;
`);
}
