/** The developer's records of a site (`site_records`, schema version 14): append-only, each row logged. */
import type { SiteRecordKind } from '../../../../shared/src/api/siteRecords.ts';
import type { LoggedRows } from '../../alerts/stores/logged.ts';
import type { RangeQuery } from '../../alerts/types.ts';
import { loggedRowsInRange } from '../../store/page.ts';
import type { Db } from '../../store/types.ts';
import type { EnforcementTable } from './logged.ts';

/** A record as stored; `body` is its fields as JSON. */
export interface SiteRecordRow {
  seq: number;
  id: string;
  site_id: string;
  site_seq: number;
  kind: SiteRecordKind;
  at: number;
  recorded_at: number;
  recorded_by: string;
  body: string;
  /** Its entry's leaf hash (hex). */
  hash: string;
  log_idx: number;
  leaf?: Buffer | null;
}

export class SiteRecordStore {
  private readonly stmts;

  constructor(
    private readonly db: Db,
    private readonly logged: LoggedRows<EnforcementTable>,
  ) {
    this.stmts = {
      insert: db.prepare(
        `INSERT INTO site_records (seq, id, site_id, site_seq, kind, at, recorded_at, recorded_by, body, hash, log_idx)
         VALUES (@seq, @id, @site_id, @site_seq, @kind, @at, @recorded_at, @recorded_by, @body, @hash, @log_idx)`,
      ),
      count: db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM site_records WHERE site_id = ?'),
      ofSite: db.prepare<[string], SiteRecordRow>(
        `SELECT *, (SELECT leaf FROM log_entries WHERE idx = log_idx) AS leaf
           FROM site_records WHERE site_id = ? ORDER BY seq`,
      ),
    };
  }

  /** Appends a record with its log entry (call inside a transaction); returns its seq and site seq. */
  append(r: Omit<SiteRecordRow, 'seq' | 'site_seq' | 'hash' | 'log_idx' | 'leaf'>): {
    seq: number;
    siteSeq: number;
  } {
    // Its place among the site's records: a report citing them all shows a removed one as a gap.
    const siteSeq = this.stmts.count.get(r.site_id)!.n + 1;
    const { seq } = this.logged.append('site_records', { ...r, site_seq: siteSeq }, this.stmts.insert);
    return { seq, siteSeq };
  }

  /** Every record of a site, in the order recorded. */
  ofSite(siteId: string): SiteRecordRow[] {
    return this.stmts.ofSite.all(siteId);
  }

  /** Records whose time falls in the range, in time order. */
  query(q: RangeQuery): SiteRecordRow[] {
    return loggedRowsInRange(this.db, 'site_records', q, { time: 'at', order: 'at, seq' });
  }
}
