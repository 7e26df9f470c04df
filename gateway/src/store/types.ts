/** The store's connection type, on its own so that modules below `db.ts` (the schema) can name it. */
import type Database from 'better-sqlite3';

export type Db = Database.Database;

/** The columns of a storm (the `storms` table, store/schema/) that its logged record is made of. */
export interface StormFields {
  id: string;
  site_id: string;
  device_id: string;
  start: number;
  end: number;
  tips: number;
  inches: number;
  qualified: number;
  threshold_at: number | null;
  due_at: number | null;
  closed: number;
  superseded_by: string | null;
}

/** A row of `storms`, as read back. */
export interface StormRow extends StormFields {
  created_at: number;
  updated_at: number;
  /** Its evidence-log entry (the storm record's latest), and that entry's leaf hash. */
  log_idx?: number | null;
  leaf?: Buffer | null;
}
