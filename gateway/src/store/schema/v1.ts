/**
 * Version 1: the tables of release 0.1.0, which created them with `CREATE TABLE IF NOT EXISTS` at start and
 * left `user_version` at 0. Every statement is idempotent, so a release-0.1.0 data directory (whose tables
 * all exist) passes through unchanged, and an empty file gets them all. The append-only triggers are in
 * `guards.ts`, applied at every open.
 */
import type { Db } from '../types.ts';

/** Readings (append-only, chained), retention anchors, rejections, the device state. */
const READINGS = `
CREATE TABLE IF NOT EXISTS readings (
  id INTEGER PRIMARY KEY,
  site_id TEXT NOT NULL,
  device_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  ts INTEGER NOT NULL,
  seq INTEGER,
  received_at INTEGER NOT NULL,
  transport TEXT NOT NULL,
  data TEXT NOT NULL,
  hash TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS readings_device_ts ON readings(site_id, device_id, ts);
CREATE TABLE IF NOT EXISTS chain_anchors (
  chain TEXT NOT NULL, upto_id INTEGER NOT NULL, hash TEXT NOT NULL, at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS rejections (
  id INTEGER PRIMARY KEY,
  at INTEGER NOT NULL,
  transport TEXT NOT NULL,
  topic TEXT NOT NULL,
  site_id TEXT,
  device_id TEXT,
  reason TEXT NOT NULL,
  detail TEXT NOT NULL,
  excerpt TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS device_state (
  site_id TEXT NOT NULL,
  device_id TEXT NOT NULL,
  last_ts INTEGER,
  last_received_at INTEGER,
  status TEXT NOT NULL DEFAULT 'unknown',
  status_at INTEGER,
  latest TEXT NOT NULL DEFAULT '{}',
  PRIMARY KEY (site_id, device_id)
);
`;

/** The InfluxDB output: queued alert-change lines and the lines InfluxDB refused for good. */
const INFLUX = `
CREATE TABLE IF NOT EXISTS influx_outbox (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  line TEXT NOT NULL,
  enqueued_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS influx_dead_letter (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  outbox_id INTEGER,
  line TEXT,
  reason TEXT,
  at INTEGER
);
`;

/** Named positions in the readings table (the rules' and the InfluxDB writer's). */
const CURSORS = 'CREATE TABLE IF NOT EXISTS cursors (name TEXT PRIMARY KEY, position INTEGER NOT NULL)';

/**
 * The alert engine: alerts, their append-only history, storms, inspections and extensions (append-only,
 * chained), the evaluators' state and the deadline timers.
 */
const ALERTS = `
CREATE TABLE IF NOT EXISTS alerts (
  id TEXT PRIMARY KEY,
  key TEXT NOT NULL,
  rule TEXT NOT NULL,
  site_id TEXT NOT NULL,
  device_id TEXT,
  status TEXT NOT NULL CHECK (status IN ('open', 'acknowledged', 'resolved')),
  raised_at INTEGER NOT NULL,
  due_at INTEGER,
  original_due_at INTEGER,
  message TEXT NOT NULL,
  evidence TEXT NOT NULL,
  acknowledged_at INTEGER,
  acknowledged_by TEXT,
  resolved_at INTEGER,
  resolution TEXT CHECK (resolution IS NULL OR resolution IN ('auto', 'manual')),
  resolved_by TEXT,
  resolution_message TEXT,
  resolution_evidence TEXT,
  within_deadline INTEGER,
  overdue_notified INTEGER NOT NULL DEFAULT 0,
  reminders_sent TEXT NOT NULL DEFAULT '[]',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (site_id, key)
);
CREATE INDEX IF NOT EXISTS alerts_site_raised ON alerts (site_id, raised_at);
CREATE INDEX IF NOT EXISTS alerts_status_raised ON alerts (status, raised_at);
CREATE INDEX IF NOT EXISTS alerts_overdue_scan ON alerts (due_at)
  WHERE status != 'resolved' AND overdue_notified = 0;

CREATE TABLE IF NOT EXISTS alert_history (
  seq INTEGER PRIMARY KEY,
  alert_id TEXT NOT NULL,
  at INTEGER NOT NULL,
  source_at INTEGER,
  actor TEXT NOT NULL,
  action TEXT NOT NULL,
  detail TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS alert_history_alert ON alert_history (alert_id, seq);

CREATE TABLE IF NOT EXISTS storms (
  id TEXT PRIMARY KEY,
  site_id TEXT NOT NULL,
  device_id TEXT NOT NULL,
  start INTEGER NOT NULL,
  end INTEGER NOT NULL,
  tips REAL NOT NULL,
  inches REAL NOT NULL,
  qualified INTEGER NOT NULL,
  threshold_at INTEGER,
  due_at INTEGER,
  closed INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  -- Set when late data merged this storm into another (its id) or showed it was no storm (''): kept for
  -- the record, left out of the storm list and reports.
  superseded_by TEXT
);
CREATE INDEX IF NOT EXISTS storms_site_start ON storms (site_id, start);

CREATE TABLE IF NOT EXISTS inspections (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  site_id TEXT NOT NULL,
  at INTEGER NOT NULL,
  inspector TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('routine', 'storm', 'annual', 'cleanout', 'other')),
  notes TEXT NOT NULL,
  recorded_at INTEGER NOT NULL,
  recorded_by TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS inspections_site_at ON inspections (site_id, at);

CREATE TABLE IF NOT EXISTS extensions (
  seq INTEGER PRIMARY KEY,
  alert_id TEXT NOT NULL,
  old_due INTEGER NOT NULL,
  new_due INTEGER NOT NULL,
  engineer TEXT NOT NULL,
  letter_ref TEXT NOT NULL,
  note TEXT,
  at INTEGER NOT NULL,
  by TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS extensions_alert ON extensions (alert_id, seq);

CREATE TABLE IF NOT EXISTS rule_state (
  site_id TEXT NOT NULL,
  rule TEXT NOT NULL,
  device_id TEXT NOT NULL DEFAULT '',
  state TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (site_id, rule, device_id)
);

CREATE TABLE IF NOT EXISTS timers (
  id INTEGER PRIMARY KEY,
  alert_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('reminder', 'overdue')),
  hours REAL,
  due_at INTEGER NOT NULL,
  fire_at INTEGER NOT NULL,
  fired_at INTEGER,
  outcome TEXT
);
CREATE INDEX IF NOT EXISTS timers_pending ON timers (fire_at) WHERE fired_at IS NULL;
CREATE INDEX IF NOT EXISTS timers_alert ON timers (alert_id);
`;

/** The notification outbox, its deliveries per channel and target, and which events were fanned out. */
const NOTIFICATIONS = `
CREATE TABLE IF NOT EXISTS notification_events (
  id INTEGER PRIMARY KEY,
  event_id TEXT UNIQUE,
  kind TEXT,
  alert_id TEXT,
  site_id TEXT,
  rule TEXT,
  payload TEXT,
  created_at INTEGER
);
CREATE TABLE IF NOT EXISTS notification_deliveries (
  id INTEGER PRIMARY KEY,
  event_id TEXT NOT NULL,
  channel TEXT NOT NULL CHECK (channel IN ('mqtt', 'webhook', 'email')),
  target TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_at INTEGER NOT NULL,
  last_error TEXT,
  sent_at INTEGER,
  UNIQUE (event_id, channel, target)
);
CREATE INDEX IF NOT EXISTS notification_deliveries_due ON notification_deliveries (status, next_at);
CREATE TABLE IF NOT EXISTS notification_fanout (
  event_id TEXT PRIMARY KEY,
  fanned_at INTEGER NOT NULL
);
`;

export function v1(db: Db): void {
  db.exec(READINGS);
  db.exec(INFLUX);
  db.exec(CURSORS);
  db.exec(ALERTS);
  db.exec(NOTIFICATIONS);
  // Dead letters gained their origin during 0.1.0; older stores lack the column.
  const columns = db.prepare('PRAGMA table_info(influx_dead_letter)').all() as Array<{ name: string }>;
  if (!columns.some((c) => c.name === 'source'))
    db.exec("ALTER TABLE influx_dead_letter ADD COLUMN source TEXT NOT NULL DEFAULT 'outbox'");
}
