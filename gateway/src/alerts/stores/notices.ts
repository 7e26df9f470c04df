/** The milestone notices: append-only, each row logged (`logged.ts`). */
import { pageSql, sitesIn } from '../../store/page.ts';
import { where } from '../../store/where.ts';
import type { Db, NoticeRow, RangeQuery } from '../types.ts';
import type { LoggedRows } from './logged.ts';

export class NoticeStore {
  private readonly stmts;

  constructor(
    private readonly db: Db,
    private readonly logged: LoggedRows,
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
    const page = pageSql('at', 'id', q.page, 'at, seq');
    const w = where([
      ['site_id = ?', q.siteId],
      sitesIn('site_id', q.siteIds),
      ['at >= ?', q.from],
      ['at <= ?', q.to],
      page.cond,
    ]);
    return this.db
      .prepare<unknown[], NoticeRow>(
        `SELECT *, (SELECT leaf FROM log_entries WHERE idx = log_idx) AS leaf FROM notices ${w.sql} ${page.tail}`,
      )
      .all(...w.params);
  }
}
