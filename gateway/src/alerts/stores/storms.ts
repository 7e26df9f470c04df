/**
 * The storm records as the engine reads them (by id, by period); a new version is written and logged
 * by the store's storm records (`store/stormRecords.ts`).
 */
import type { StormEvent } from '../../rules/types.ts';
import type { EvidenceLog } from '../../store/evidenceLog.ts';
import { loggedRowsInRange } from '../../store/page.ts';
import type { ReadingWindow } from '../../store/readingWindows.ts';
import { StormRecords } from '../../store/stormRecords.ts';
import type { Db, RangeQuery, StormRow } from '../types.ts';

/**
 * The readings of a storm that called for an inspection are kept with it (`store/readingWindows.ts`):
 * its gauge's, from its first tip to its last.
 */
export const STORM_READINGS: ReadingWindow = {
  name: 'storms',
  sql: 'SELECT site_id, device_id, start, end FROM storms WHERE qualified = 1',
};

export class StormStore {
  private readonly stmts;
  private readonly records: StormRecords;

  constructor(
    private readonly db: Db,
    log: EvidenceLog,
  ) {
    this.stmts = {
      byId: db.prepare<[string], StormRow>(
        'SELECT *, (SELECT leaf FROM log_entries WHERE idx = log_idx) AS leaf FROM storms WHERE id = ?',
      ),
    };
    this.records = new StormRecords(db, log);
  }

  /** Stores the event's new version and logs it (call inside the transaction that applies the effect). */
  upsert(e: StormEvent, now: number): void {
    this.records.write(e, now);
  }

  byId(id: string): StormRow | undefined {
    return this.stmts.byId.get(id);
  }

  /** Storms overlapping [from, to]. */
  query(q: RangeQuery): StormRow[] {
    return loggedRowsInRange(this.db, 'storms', q, {
      time: 'start',
      ends: 'end',
      order: 'start, id',
      // A storm that late data merged into another, or withdrew, is kept but not listed.
      extra: [['superseded_by IS NULL', []]],
    });
  }
}
