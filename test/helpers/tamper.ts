/**
 * Someone with a copy of a stopped gateway's data directory, editing it. A naive editor changes the
 * records; a thorough one also rebuilds the evidence log from the edited records, so that the store agrees
 * with itself again (and removes the signed checkpoints that would give it away).
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';

function open(dataDir: string): Database.Database {
  const db = new Database(join(dataDir, 'gateway.db'));
  for (const t of ['readings', 'alert_history', 'inspections', 'extensions'])
    for (const op of ['update', 'delete']) db.exec(`DROP TRIGGER IF EXISTS ${t}_no_${op}`);
  return db;
}

export type Tampering =
  | 'delete-newest-readings'
  | 'rewrite-storm'
  | 'edit-inspection'
  | 'remove-history-row'
  | 'reword-inspection'
  | 'remove-acknowledgement';

export function tamper(dataDir: string, what: Tampering): void {
  const db = open(dataDir);
  switch (what) {
    case 'delete-newest-readings':
      // The rain gauge's last two readings: the end of its storm.
      db.exec(
        "DELETE FROM readings WHERE id IN (SELECT id FROM readings WHERE device_id = 'rg-1' ORDER BY id DESC LIMIT 2)",
      );
      break;
    case 'rewrite-storm':
      db.exec('UPDATE storms SET tips = 10, inches = 0.10');
      break;
    case 'edit-inspection':
      db.exec("UPDATE inspections SET at = at - 86400000, notes = 'all fine'");
      break;
    case 'remove-history-row':
      // The history entry of the engineer's extension: the duty's due time is then unexplained.
      db.exec("DELETE FROM alert_history WHERE action = 'extended'");
      break;
    case 'reword-inspection':
      // What the inspector wrote and who they were, not when: no status or total changes.
      db.exec("UPDATE inspections SET notes = 'all fine', inspector = 'Someone Else'");
      break;
    case 'remove-acknowledgement':
      // An entry in the middle of a resolved duty's history: its due time and status stay the same.
      db.exec("DELETE FROM alert_history WHERE action = 'acknowledged'");
      break;
  }
  db.close();
}

/** Rebuilds the evidence log from the records as they now are, and removes the signed checkpoints. */
export function forgeLog(dataDir: string): void {
  const db = open(dataDir);
  db.exec(`DROP TABLE log_entries; DROP TABLE log_nodes; DROP TABLE log_checkpoints;
    ALTER TABLE readings DROP COLUMN log_idx; ALTER TABLE storms DROP COLUMN log_idx;
    ALTER TABLE alert_history DROP COLUMN log_idx; ALTER TABLE inspections DROP COLUMN log_idx;
    ALTER TABLE extensions DROP COLUMN log_idx`);
  // The next start takes the records over into a new log, as it does a release-0.1.0 store's.
  db.pragma('user_version = 2');
  db.close();
}

/**
 * A hidden truncation: the newest `readings` readings deleted, and with them the log's tail from the first
 * of their entries (every record logged from there on, the entries, the stored subtrees that cover them,
 * and the signed checkpoints above the cut). The store agrees with itself afterwards: only a checkpoint
 * kept off the box can show it. Returns the log's size after the cut.
 */
export function truncateTail(dataDir: string, readings: number): number {
  const db = new Database(join(dataDir, 'gateway.db'));
  try {
    const cut = (
      db
        .prepare('SELECT MIN(log_idx) AS idx FROM (SELECT log_idx FROM readings ORDER BY id DESC LIMIT ?)')
        .get(readings) as { idx: number }
    ).idx;
    const tables = (
      db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%log_idx%'")
        .all() as Array<{ name: string }>
    ).map((t) => t.name);
    for (const t of db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'").all() as Array<{
      name: string;
    }>)
      db.exec(`DROP TRIGGER "${t.name}"`);
    db.transaction(() => {
      for (const t of tables) db.prepare(`DELETE FROM "${t}" WHERE log_idx >= ?`).run(cut);
      db.prepare('DELETE FROM log_entries WHERE idx >= ?').run(cut);
      db.prepare('DELETE FROM log_nodes WHERE (idx + 1) * (1 << level) > ?').run(cut);
      db.prepare('DELETE FROM log_checkpoints WHERE size > ?').run(cut);
    })();
    return cut;
  } finally {
    db.close();
  }
}
