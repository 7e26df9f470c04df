/**
 * Version 14: an inspection of a wastewater system records more than its findings (law 000): the
 * deficiencies an engineer's annual inspection found (each opens its 5- or 30-day remedy duty), the
 * earlier deficiencies a visit found remedied, and, for a pump-out, the hauler and the hauler's NYS DEC
 * permit number. `details` is canonical JSON of an object (`{}` for none, and for every inspection before).
 */
import type { Db } from '../types.ts';

export function v14(db: Db): void {
  const cols = db.prepare('PRAGMA table_info(inspections)').all() as Array<{ name: string }>;
  if (!cols.some((c) => c.name === 'details'))
    db.exec("ALTER TABLE inspections ADD COLUMN details TEXT NOT NULL DEFAULT '{}'");
}
