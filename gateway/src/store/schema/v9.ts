/**
 * Version 9: inspections with findings and photos (town law 001, "Erosion and sediment control
 * inspection"). `photos` records each photo stored content-addressed under the data directory
 * (`photos/<aa>/<sha256>`): its type, size, when and by whom; a row is never changed or removed (guards).
 * An inspection gains its `findings` (canonical JSON of what it found at each practice, with the photos'
 * hashes; `[]` for every inspection before) and the `client_id` a browser gave it, unique where given, so
 * an inspection sent twice is recorded once.
 */
import type { Db } from '../types.ts';

function hasColumn(db: Db, table: string, column: string): boolean {
  const cols = db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>;
  return cols.some((c) => c.name === column);
}

export function v9(db: Db): void {
  db.exec(`
CREATE TABLE IF NOT EXISTS photos (
  sha256 TEXT PRIMARY KEY,
  type TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  stored_at INTEGER NOT NULL,
  stored_by TEXT NOT NULL
);
`);
  if (!hasColumn(db, 'inspections', 'findings'))
    db.exec("ALTER TABLE inspections ADD COLUMN findings TEXT NOT NULL DEFAULT '[]'");
  if (!hasColumn(db, 'inspections', 'client_id'))
    db.exec('ALTER TABLE inspections ADD COLUMN client_id TEXT');
  db.exec(
    'CREATE UNIQUE INDEX IF NOT EXISTS inspections_client_id ON inspections (client_id) WHERE client_id IS NOT NULL',
  );
}
