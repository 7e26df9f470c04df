/**
 * Version 2: rejections are stored sampled. A stored rejection row counts the rejections like it (same
 * device and reason, same minute) that were counted but not stored.
 */
import type { Db } from '../types.ts';

export function v2(db: Db): void {
  db.exec('ALTER TABLE rejections ADD COLUMN suppressed INTEGER NOT NULL DEFAULT 0');
}
