/**
 * Version 5: the quarantine. A message that cannot be used now but may be later (a timestamp ahead of the
 * gateway's clock, a device not registered yet) is kept whole, with its reason, out of the readings, the
 * rules and InfluxDB, until it is released (as a reading, at a corrected time for a clock that was off) or
 * stays. `client` is whom the per-client cap counts against; `released_at`, `released_by`,
 * `offset_ms`, `outcome` and `change_id` say how it left (its change record for a release by a person).
 */
import type { Db } from '../types.ts';

const DDL = `
CREATE TABLE IF NOT EXISTS quarantine (
  id INTEGER PRIMARY KEY,
  received_at INTEGER NOT NULL,
  transport TEXT NOT NULL,
  topic TEXT NOT NULL,
  client TEXT NOT NULL,
  site_id TEXT NOT NULL,
  device_id TEXT NOT NULL,
  reason TEXT NOT NULL,
  detail TEXT NOT NULL,
  source_ts INTEGER,
  payload TEXT NOT NULL,
  released_at INTEGER,
  released_by TEXT,
  offset_ms INTEGER,
  outcome TEXT,
  change_id INTEGER
);
CREATE INDEX IF NOT EXISTS quarantine_waiting ON quarantine (site_id, device_id, id) WHERE released_at IS NULL;
CREATE INDEX IF NOT EXISTS quarantine_client ON quarantine (client) WHERE released_at IS NULL;
`;

export function v5(db: Db): void {
  db.exec(DDL);
}
