import type { Db } from './types.ts';
import { where } from './where.ts';

/**
 * One page of a list, newest first, by keyset: the rows after the cursor's row (a time and an id, the
 * last row of the page before), `limit` of them and one more to tell whether a next page exists. No row
 * before the page is read, however long the list.
 */
export interface Page {
  limit: number;
  /** The last row of the page before: its time and its id. */
  after?: readonly [number, string | number];
}

/**
 * The condition (for `where()`) and the ORDER BY … LIMIT of a page over `time` and `id` (columns of the
 * list's table): `(time, id) < (?, ?) ORDER BY time DESC, id DESC LIMIT limit + 1`. Without a page, the
 * list's own order (`order`) and every row, as before.
 */
export function pageSql(
  time: string,
  id: string,
  page: Page | undefined,
  order: string,
): { cond: [string, unknown]; tail: string } {
  if (!page) return { cond: ['1', undefined], tail: `ORDER BY ${order}` };
  return {
    cond: [`(${time}, ${id}) < (?, ?)`, page.after ? [...page.after] : undefined],
    tail: `ORDER BY ${time} DESC, ${id} DESC LIMIT ${Math.max(1, Math.floor(page.limit)) + 1}`,
  };
}

/** A site filter for the sites a caller may see (undefined: every site). */
export const sitesIn = (column: string, siteIds: readonly string[] | undefined): [string, unknown] => [
  `${column} IN (SELECT value FROM json_each(?))`,
  siteIds === undefined ? undefined : JSON.stringify(siteIds),
];

/** What a list in a time range is asked for: a site or the sites a caller may see, the range, a page. */
export interface RangeFilter {
  siteId?: string | undefined;
  siteIds?: readonly string[] | undefined;
  from?: number | undefined;
  to?: number | undefined;
  page?: Page | undefined;
}

/**
 * The rows of a logged table in a time range: those of the site (or the sites a caller may see) whose
 * `time` is at most `to` and whose `ends` (default `time`) is at least `from`, with `extra` conditions,
 * one page of them or all in `order`; each carries its log entry's leaf hash (`leaf`) unless `leaf` is false.
 */
export function loggedRowsInRange<R>(
  db: Db,
  table: string,
  q: RangeFilter,
  o: { time: string; ends?: string; order: string; extra?: Array<[string, unknown]>; leaf?: boolean },
): R[] {
  const page = pageSql(o.time, 'id', q.page, o.order);
  const w = where([
    ...(o.extra ?? []),
    ['site_id = ?', q.siteId],
    sitesIn('site_id', q.siteIds),
    [`${o.ends ?? o.time} >= ?`, q.from],
    [`${o.time} <= ?`, q.to],
    page.cond,
  ]);
  return db
    .prepare<unknown[], R>(
      `SELECT *${o.leaf === false ? '' : ', (SELECT leaf FROM log_entries WHERE idx = log_idx) AS leaf'} FROM ${table} ${w.sql} ${page.tail}`,
    )
    .all(...w.params);
}
