/** The engineers' extension letters: append-only, each row logged (`logged.ts`). */
import { pageSql, sitesIn } from '../../store/page.ts';
import { where } from '../../store/where.ts';
import type { Db, ExtensionListRow, ExtensionRow, RangeQuery } from '../types.ts';
import type { LoggedRows } from './logged.ts';

export class ExtensionStore {
  private readonly insert;

  constructor(
    private readonly db: Db,
    private readonly logged: LoggedRows,
  ) {
    this.insert = db.prepare(
      `INSERT INTO extensions (seq, alert_id, old_due, new_due, engineer, letter_ref, note, at, by,
         prev_hash, hash, log_idx)
       VALUES (@seq, @alert_id, @old_due, @new_due, @engineer, @letter_ref, @note, @at, @by,
         @prev_hash, @hash, @log_idx)`,
    );
  }

  append(e: Omit<ExtensionRow, 'seq' | 'prev_hash' | 'hash'>): number {
    return this.logged.append('extensions', { ...e }, this.insert).seq;
  }

  /** Extensions, with the site and rule of their alert. */
  query(q: RangeQuery & { alertId?: string }): ExtensionListRow[] {
    const page = pageSql('e.at', 'e.seq', q.page, 'e.seq');
    const w = where([
      ['e.alert_id = ?', q.alertId],
      ['a.site_id = ?', q.siteId],
      sitesIn('a.site_id', q.siteIds),
      ['e.at >= ?', q.from],
      ['e.at <= ?', q.to],
      page.cond,
    ]);
    const sql = `SELECT e.*, a.site_id AS site_id, a.rule AS rule, (SELECT leaf FROM log_entries l WHERE l.idx = e.log_idx) AS leaf FROM extensions e JOIN alerts a ON a.id = e.alert_id
      ${w.sql} ${page.tail}`;
    return this.db.prepare<unknown[], ExtensionListRow>(sql).all(...w.params);
  }
}
