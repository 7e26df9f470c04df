/**
 * Version 10: enforcement (town law 001, "Enforcement"). Notices of violation (`violations`) and what
 * followed each (`violation_events`: appealed, corrected, approved), stop-work orders (`stop_work`) and
 * their lifting (`stop_work_events`). All append-only, each row an entry of the evidence log
 * (`enforcement/stores/logged.ts`): `hash` is its entry's leaf hash (hex), `log_idx` its index; `site_seq` is
 * a notice's (or an order's) place among its site's, so that a report citing them all shows a removed one
 * as a gap. A notice's status and an order's being in effect are derived from their events.
 */
import type { Db } from '../types.ts';

export function v10(db: Db): void {
  db.exec(`
CREATE TABLE IF NOT EXISTS violations (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  site_id TEXT NOT NULL,
  site_seq INTEGER NOT NULL,
  inspection_id TEXT,
  nature TEXT NOT NULL,
  remedy TEXT NOT NULL,
  remedy_due_at INTEGER NOT NULL,
  penalties TEXT NOT NULL,
  at INTEGER NOT NULL,
  issued_by TEXT NOT NULL,
  appeal_by INTEGER NOT NULL,
  parties TEXT NOT NULL,
  hash TEXT NOT NULL,
  log_idx INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS violations_site_at ON violations (site_id, at);
CREATE TABLE IF NOT EXISTS violation_events (
  seq INTEGER PRIMARY KEY,
  violation_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  at INTEGER NOT NULL,
  by TEXT NOT NULL,
  text TEXT NOT NULL,
  photos TEXT NOT NULL,
  hash TEXT NOT NULL,
  log_idx INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS violation_events_of ON violation_events (violation_id, seq);
CREATE TABLE IF NOT EXISTS stop_work (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  site_id TEXT NOT NULL,
  site_seq INTEGER NOT NULL,
  reason TEXT NOT NULL,
  violation_ids TEXT NOT NULL,
  at INTEGER NOT NULL,
  issued_by TEXT NOT NULL,
  hash TEXT NOT NULL,
  log_idx INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS stop_work_site_at ON stop_work (site_id, at);
CREATE TABLE IF NOT EXISTS stop_work_events (
  seq INTEGER PRIMARY KEY,
  order_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  at INTEGER NOT NULL,
  by TEXT NOT NULL,
  note TEXT NOT NULL,
  override INTEGER NOT NULL,
  hash TEXT NOT NULL,
  log_idx INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS stop_work_events_of ON stop_work_events (order_id, seq);
`);
}
