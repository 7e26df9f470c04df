/** The store's connection type, on its own so that modules below `db.ts` (the schema) can name it. */
import type Database from 'better-sqlite3';
import type { StormFields } from '../ledger/records.ts';

export type { StormFields };

export type Db = Database.Database;

/** A row of `storms`, as read back. */
export interface StormRow extends StormFields {
  created_at: number;
  updated_at: number;
  /** Its evidence-log entry (the storm record's latest), and that entry's leaf hash. */
  log_idx?: number | null;
  leaf?: Buffer | null;
}
