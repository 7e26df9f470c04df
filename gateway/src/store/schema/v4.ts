/**
 * Version 4: people, and the sites and devices managed live.
 * - `users`: accounts (e-mail unique regardless of case, scrypt password hash, role, the sites of an owner
 *   or contractor as a JSON list); `sessions` and `api_tokens` keep only the SHA-256 of what the browser or
 *   the person holds; `setup_codes` the one-time links that create the first admin.
 * - `sites`, `devices`, `recipients`: the catalogue. A site's and a device's configuration is kept as JSON
 *   (validated with the configuration's schema when read), so a rule's new parameter needs no new column.
 *   A retired device keeps its row (`retired_at`), its readings and its history. Rows are read in the
 *   order they were added (rowid), so the configuration's order is kept.
 * - `device_secrets`: each device's MQTT password hashes (scrypt); the newest unrevoked one is in force.
 * - `calibrations`: a rain gauge's inches per tip before each calibration change (`until`).
 * - `changes`: every change made to the above: who, when, the old and the new value, when it takes effect,
 *   and its entry in the evidence log. Append-only.
 */
import type { Db } from '../types.ts';

const DDL = `
CREATE TABLE IF NOT EXISTS users (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  email TEXT NOT NULL COLLATE NOCASE UNIQUE,
  role TEXT NOT NULL,
  sites TEXT NOT NULL DEFAULT '[]',
  password_hash TEXT NOT NULL,
  disabled INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
  id_sha256 TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id),
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_user ON sessions (user_id);
CREATE TABLE IF NOT EXISTS api_tokens (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id),
  name TEXT NOT NULL,
  token_sha256 TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  last_used_at INTEGER,
  revoked_at INTEGER
);
CREATE INDEX IF NOT EXISTS api_tokens_user ON api_tokens (user_id);
CREATE TABLE IF NOT EXISTS setup_codes (
  code_sha256 TEXT PRIMARY KEY,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER
);
CREATE TABLE IF NOT EXISTS sites (
  id TEXT PRIMARY KEY,
  config TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS devices (
  site_id TEXT NOT NULL REFERENCES sites(id),
  id TEXT NOT NULL,
  config TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  retired_at INTEGER,
  PRIMARY KEY (site_id, id)
);
CREATE TABLE IF NOT EXISTS recipients (
  site_id TEXT NOT NULL REFERENCES sites(id),
  pos INTEGER NOT NULL,
  role TEXT NOT NULL,
  name TEXT,
  email TEXT,
  webhook TEXT,
  PRIMARY KEY (site_id, pos)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS device_secrets (
  id INTEGER PRIMARY KEY,
  site_id TEXT NOT NULL,
  device_id TEXT NOT NULL,
  password_hash TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER
);
CREATE INDEX IF NOT EXISTS device_secrets_device ON device_secrets (site_id, device_id, id);
CREATE TABLE IF NOT EXISTS calibrations (
  site_id TEXT NOT NULL,
  device_id TEXT NOT NULL,
  until INTEGER NOT NULL,
  inches_per_tip REAL NOT NULL,
  change_id INTEGER,
  PRIMARY KEY (site_id, device_id, until)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS changes (
  id INTEGER PRIMARY KEY,
  at INTEGER NOT NULL,
  effective_at INTEGER NOT NULL,
  actor TEXT NOT NULL,
  entity TEXT NOT NULL,
  action TEXT NOT NULL,
  site_id TEXT,
  device_id TEXT,
  ref TEXT,
  old TEXT,
  new TEXT,
  log_idx INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS changes_site ON changes (site_id, effective_at);
`;

export function v4(db: Db): void {
  db.exec(DDL);
}
