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
