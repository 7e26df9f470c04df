/**
 * Version 16: the developer's records of a construction site (town law 001): contractors' certifications,
 * the SWPPP kept on site, expected milestones, the officer's final acceptance and the one-year inspection
 * (`shared/src/api/siteRecords.ts`). Append-only, each row an entry of the evidence log
 * (`enforcement/stores/logged.ts`): `kind` names the record, `body` is its fields as canonical JSON, `at` the
 * time it speaks of, `site_seq` its place among its site's records (a report citing them all shows a
 * removed one as a gap). Its triggers against UPDATE and DELETE are the guards' (`guards.ts`).
 */
import type { Db } from '../types.ts';

export function v16(db: Db): void {
  db.exec(`
CREATE TABLE IF NOT EXISTS site_records (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  site_id TEXT NOT NULL,
  site_seq INTEGER NOT NULL,
  kind TEXT NOT NULL,
  at INTEGER NOT NULL,
  recorded_at INTEGER NOT NULL,
  recorded_by TEXT NOT NULL,
  body TEXT NOT NULL,
  hash TEXT NOT NULL,
  log_idx INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS site_records_page ON site_records (at, id);
CREATE INDEX IF NOT EXISTS site_records_site_page ON site_records (site_id, at, id);
`);
}
