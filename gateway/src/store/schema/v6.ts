/**
 * Version 6: each alert's history entries and each site's inspections carry their own running number,
 * in the row and in its evidence-log body (`alertSeq`, `siteSeq`), so that a report citing an alert's
 * history or a site's inspections shows a removed one as a gap. Rows logged before have none (their
 * logged bodies have none either). Applies on a store at version 4 or 5, and again on a store whose
 * log was rebuilt (the columns are added only when missing).
 */
import type { Db } from '../types.ts';

function addColumn(db: Db, table: string, column: string): void {
  const cols = db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>;
  if (!cols.some((c) => c.name === column)) db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} INTEGER`);
}

export function v6(db: Db): void {
  addColumn(db, 'alert_history', 'alert_seq');
  addColumn(db, 'inspections', 'site_seq');
  db.exec('CREATE INDEX IF NOT EXISTS inspections_site_seq ON inspections (site_id, seq)');
}
