/**
 * The storm records: one row per storm event, upserted as late data changes it. Every version is an
 * entry of the evidence log that names the readings it was computed from and the entry it supersedes;
 * the row keeps its latest entry's index.
 */
import type { EvidenceLog } from '../../evidence/log.ts';
import { recordBody, stormRecord } from '../../evidence/records.ts';
import type { StormEvent } from '../../rules/types.ts';
import { stormReadingsQuery } from '../../store/schema/legacy.ts';
import { where } from '../../store/where.ts';
import type { Db, RangeQuery, StormRow } from '../types.ts';

export class StormStore {
  private readonly stmts;

  private readonly readings;

  constructor(
    private readonly db: Db,
    private readonly log: EvidenceLog,
  ) {
    this.stmts = {
      upsert: db.prepare(
        `INSERT INTO storms (id, site_id, device_id, start, end, tips, inches, qualified, threshold_at, due_at,
           closed, created_at, updated_at, superseded_by, log_idx)
         VALUES (@id, @site_id, @device_id, @start, @end, @tips, @inches, @qualified, @threshold_at, @due_at,
           @closed, @now, @now, @superseded_by, @log_idx)
         ON CONFLICT (id) DO UPDATE SET end = excluded.end, tips = excluded.tips, inches = excluded.inches,
           qualified = excluded.qualified, threshold_at = excluded.threshold_at, due_at = excluded.due_at,
           closed = excluded.closed, updated_at = excluded.updated_at, superseded_by = excluded.superseded_by,
           log_idx = excluded.log_idx`,
      ),
      byId: db.prepare<[string], StormRow>(
        'SELECT *, (SELECT leaf FROM log_entries WHERE idx = log_idx) AS leaf FROM storms WHERE id = ?',
      ),
      logIdx: db.prepare<[string], { log_idx: number | null }>('SELECT log_idx FROM storms WHERE id = ?'),
    };
    this.readings = stormReadingsQuery(db);
  }

  /** Stores the event's new version and logs it (call inside the transaction that applies the effect). */
  upsert(e: StormEvent, now: number): void {
    const row = {
      id: e.id,
      site_id: e.siteId,
      device_id: e.deviceId,
      start: e.start,
      end: e.end,
      tips: e.tips,
      inches: e.inches,
      qualified: e.qualified ? 1 : 0,
      threshold_at: e.thresholdAt ?? null,
      due_at: e.dueAt ?? null,
      closed: e.closed ? 1 : 0,
      superseded_by: e.supersededBy ?? null,
    };
    const supersedes = this.stmts.logIdx.get(e.id)?.log_idx ?? null;
    const record = stormRecord(row, this.readings(e.siteId, e.deviceId, e.start, e.end), supersedes, e.basis);
    const [logIdx] = this.log.append([
      { kind: 'storm', ref: e.id, at: now, body: recordBody('storm', record), keepBody: true },
    ]);
    this.stmts.upsert.run({ ...row, now, log_idx: logIdx });
  }

  byId(id: string): StormRow | undefined {
    return this.stmts.byId.get(id);
  }

  /** Storms overlapping [from, to]. */
  query(q: RangeQuery): StormRow[] {
    const w = where([
      // A storm that late data merged into another, or withdrew, is kept but not listed.
      ['superseded_by IS NULL', []],
      ['site_id = ?', q.siteId],
      ['end >= ?', q.from],
      ['start <= ?', q.to],
    ]);
    return this.db
      .prepare<unknown[], StormRow>(
        `SELECT *, (SELECT leaf FROM log_entries WHERE idx = log_idx) AS leaf FROM storms ${w.sql} ORDER BY start, id`,
      )
      .all(...w.params);
  }
}
