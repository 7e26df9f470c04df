/**
 * Version 19: an inspection's signature. Each inspection keeps the inspector's signature under the
 * statement (`signature`, canonical JSON of `Signature`: the name, how it was signed, and a drawing's
 * strokes as path data), as its log entry's `signature` member does. Rows recorded before have none, and
 * their entries none: they read, and verify, as they did.
 */
import type { Db } from '../types.ts';

export function v19(db: Db): void {
  const cols = new Set(
    (db.prepare('PRAGMA table_info(inspections)').all() as Array<{ name: string }>).map((c) => c.name),
  );
  if (!cols.has('signature')) db.exec('ALTER TABLE inspections ADD COLUMN signature TEXT');
}
