/** The milestone notices: append-only, each row logged (`logged.ts`). */
import type { Milestone } from '../../../../shared/src/api/notices.ts';
import type { LoggedRows } from '../../alerts/stores/logged.ts';
import type { RangeQuery } from '../../alerts/types.ts';
import { loggedRowsInRange } from '../../store/page.ts';
import type { Db } from '../../store/types.ts';
import type { EnforcementTable } from './logged.ts';

/** A milestone notice as stored (`notices`, schema version 8); `late` is 1 or 0. */
export interface NoticeRow {
  seq: number;
  id: string;
  site_id: string;
  milestone: Milestone;
  at: number;
  filed_at: number;
  filed_by: string;
  late: number;
  site_seq: number;
  /** Its entry's leaf hash (hex). */
  hash: string;
  log_idx: number;
  leaf?: Buffer | null;
}

export class NoticeStore {
  private readonly stmts;

  constructor(
    private readonly db: Db,
    private readonly logged: LoggedRows<EnforcementTable>,
  ) {
    this.stmts = {
      insert: db.prepare(
        `INSERT INTO notices (seq, id, site_id, milestone, at, filed_at, filed_by, late, site_seq, hash, log_idx)
         VALUES (@seq, @id, @site_id, @milestone, @at, @filed_at, @filed_by, @late, @site_seq, @hash, @log_idx)`,
      ),
      count: db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM notices WHERE site_id = ?'),
    };
  }

  /** Appends a notice with its log entry (call inside a transaction); returns its seq. */
  append(n: Omit<NoticeRow, 'seq' | 'site_seq' | 'hash' | 'log_idx' | 'leaf'>): number {
    // Its place among the site's notices: a report citing them all shows a removed one as a gap.
    const site_seq = this.stmts.count.get(n.site_id)!.n + 1;
    return this.logged.append('notices', { ...n, site_seq }, this.stmts.insert).seq;
  }

  /** Notices whose milestone time falls in the range, in time order. */
  query(q: RangeQuery): NoticeRow[] {
    return loggedRowsInRange(this.db, 'notices', q, { time: 'at', order: 'at, seq' });
  }
}
