/**
 * Version 17: what an inspection is. Each inspection keeps whose it is (`side`: `developer` or `town`)
 * and, at a site with practices, how many practices it covered (`covered`, each with a finding) of how
 * many the site had when it was recorded (`practices`). Only an inspection of the sides a duty names,
 * covering every practice, meets a storm or routine duty. Rows recorded before have none of them: they
 * read as the developer's, with no coverage, as they were counted then.
 */
import type { Db } from '../types.ts';

export function v17(db: Db): void {
  const cols = new Set(
    (db.prepare('PRAGMA table_info(inspections)').all() as Array<{ name: string }>).map((c) => c.name),
  );
  if (!cols.has('side')) db.exec('ALTER TABLE inspections ADD COLUMN side TEXT');
  if (!cols.has('practices')) db.exec('ALTER TABLE inspections ADD COLUMN practices INTEGER');
  if (!cols.has('covered')) db.exec('ALTER TABLE inspections ADD COLUMN covered INTEGER');
}
