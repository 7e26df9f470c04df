/**
 * The storm records' persistence: one `storms` row per storm event, upserted as late data changes it,
 * and every version an entry of the evidence log (`storm`) naming the readings it was computed from (how
 * many of its gauge's readings fall from its start to its end) and the entry it supersedes; the row
 * keeps its latest entry's index. Writing a version, counting its readings, taking a release-0.1.0
 * store's storms over, and rebuilding a row's logged body for the audit all live here; the body's form
 * is the ledger's (`ledger/records.ts`).
 */
import { recordBody, type StormBasis, type StormReadings, stormRecord } from '../ledger/records.ts';
import type { StormEvent } from '../rules/types.ts';
import type { EvidenceLog } from './evidenceLog.ts';
import type { Db } from './types.ts';

/** How many readings of a gauge fall in [start, end]: what a storm record rests on. */
export function stormReadingsQuery(db: Db) {
  const stmt = db.prepare<[string, string, number, number], StormReadings>(
    // Counted on the (site, device, ts) index alone: cheap enough for every version of a growing storm.
    `SELECT COUNT(*) AS count FROM readings WHERE site_id = ? AND device_id = ? AND ts >= ? AND ts <= ?`,
  );
  return (siteId: string, deviceId: string, start: number, end: number): StormReadings =>
    stmt.get(siteId, deviceId, start, end)!;
}

/**
 * The storm rows no entry logs yet (a release-0.1.0 store's), as the log takes them over: each with its
 * record, in the order they were written.
 */
export function unloggedStorms(db: Db): Array<{ ref: string; record: Record<string, unknown> }> {
  const readings = stormReadingsQuery(db);
  return db
    .prepare<[], Record<string, unknown>>(
      'SELECT * FROM storms WHERE log_idx IS NULL ORDER BY created_at, id',
    )
    .all()
    .map((s) => ({
      ref: s.id as string,
      record: stormRecord(
        s as never,
        readings(s.site_id as string, s.device_id as string, s.start as number, s.end as number),
        null,
      ),
    }));
}

/**
 * The body a storm row serialises to against the entry that logged it: the row as it is now, with the
 * readings, superseded entry and basis the entry gives (they are the entry's own account, not the row's).
 */
export function stormRowBody(row: Record<string, unknown>, entryBody: string | null): string {
  const logged = JSON.parse(entryBody ?? '{}') as {
    readings?: StormReadings;
    supersedes?: number;
    basis?: StormBasis;
  };
  return recordBody(
    'storm',
    stormRecord(row as never, logged.readings as never, logged.supersedes ?? null, logged.basis),
  );
}

/** Writes storm record versions with their log entries. */
export class StormRecords {
  private readonly stmts;
  private readonly readings;

  constructor(
    db: Db,
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
      logIdx: db.prepare<[string], { log_idx: number | null }>('SELECT log_idx FROM storms WHERE id = ?'),
    };
    this.readings = stormReadingsQuery(db);
  }

  /** Stores the event's new version and logs it (call inside the transaction that applies the effect). */
  write(e: StormEvent, now: number): void {
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
}
