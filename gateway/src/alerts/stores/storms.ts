/** The storm records: one row per storm event, upserted as late data changes it. */
import type { StormEvent } from '../../rules/types.ts';
import { where } from '../../store/where.ts';
import type { Db, RangeQuery, StormRow } from '../types.ts';

export class StormStore {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      upsert: db.prepare(
        `INSERT INTO storms (id, site_id, device_id, start, end, tips, inches, qualified, threshold_at, due_at,
           closed, created_at, updated_at, superseded_by)
         VALUES (@id, @siteId, @deviceId, @start, @end, @tips, @inches, @qualified, @thresholdAt, @dueAt,
           @closed, @now, @now, @supersededBy)
         ON CONFLICT (id) DO UPDATE SET end = excluded.end, tips = excluded.tips, inches = excluded.inches,
           qualified = excluded.qualified, threshold_at = excluded.threshold_at, due_at = excluded.due_at,
           closed = excluded.closed, updated_at = excluded.updated_at, superseded_by = excluded.superseded_by`,
      ),
      byId: db.prepare<[string], StormRow>('SELECT * FROM storms WHERE id = ?'),
    };
  }

  upsert(e: StormEvent, now: number): void {
    this.stmts.upsert.run({
      id: e.id,
      siteId: e.siteId,
      deviceId: e.deviceId,
      start: e.start,
      end: e.end,
      tips: e.tips,
      inches: e.inches,
      qualified: e.qualified ? 1 : 0,
      thresholdAt: e.thresholdAt ?? null,
      dueAt: e.dueAt ?? null,
      closed: e.closed ? 1 : 0,
      supersededBy: e.supersededBy ?? null,
      now,
    });
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
      .prepare<unknown[], StormRow>(`SELECT * FROM storms ${w.sql} ORDER BY start, id`)
      .all(...w.params);
  }
}
