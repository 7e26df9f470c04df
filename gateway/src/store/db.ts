import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { migrate } from './schema/index.ts';

export type { Db } from './types.ts';

import type { Db } from './types.ts';

export interface OpenOptions {
  /** `full` fsyncs every commit (survives power loss); `normal` (default) survives a killed process. */
  synchronous?: 'full' | 'normal';
}

/**
 * Opens (creating if needed) the gateway's SQLite store in WAL mode and migrates it to this release's
 * schema. One gateway per data directory.
 */
export function openDatabase(dataDir: string, opts: OpenOptions = {}): Db {
  mkdirSync(dataDir, { recursive: true });
  const db = new Database(join(dataDir, 'gateway.db'));
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${opts.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  migrate(db);
  return db;
}
