/**
 * Version 18: what closed an alert. A resolution keeps its cause (`resolution_cause`, canonical JSON of
 * `ResolutionCause`: an inspection, the officer's approval of a notice, the readings, a person, ...), as
 * its history entry's `detail.cause` does in the evidence log. Alerts resolved before have none: their
 * resolution reads as it did.
 */
import type { Db } from '../types.ts';

export function v18(db: Db): void {
  const cols = new Set(
    (db.prepare('PRAGMA table_info(alerts)').all() as Array<{ name: string }>).map((c) => c.name),
  );
  if (!cols.has('resolution_cause')) db.exec('ALTER TABLE alerts ADD COLUMN resolution_cause TEXT');
}
