/**
 * Version 8: milestone notices (town law 001, A(1): the applicant notifies the town at least 48 hours
 * before each of eight construction milestones). Append-only, each row an entry of the evidence log
 * (`enforcement/stores/logged.ts`): `hash` is its entry's leaf hash (hex), `log_idx` its index, `site_seq` its
 * place among its site's notices, so that a report citing them all shows a removed one as a gap.
 */
import type { Db } from '../types.ts';

export function v8(db: Db): void {
  db.exec(`
CREATE TABLE IF NOT EXISTS notices (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  site_id TEXT NOT NULL,
  milestone TEXT NOT NULL,
  at INTEGER NOT NULL,
  filed_at INTEGER NOT NULL,
  filed_by TEXT NOT NULL,
  late INTEGER NOT NULL,
  site_seq INTEGER NOT NULL,
  hash TEXT NOT NULL,
  log_idx INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS notices_site_at ON notices (site_id, at);
CREATE INDEX IF NOT EXISTS notices_at ON notices (at);
`);
}
