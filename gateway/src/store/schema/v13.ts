/**
 * Version 13: the lists' pages read by index. Each list answers newest first, a page at a time after the
 * last row of the page before (`store/page.ts`: `(time, id) < (?, ?) ORDER BY time DESC, id DESC`); these
 * indexes give that order, over every site and within one, so a page reads its own rows and no more,
 * however long the list (before, each page scanned and sorted the whole table).
 */
import type { Db } from '../types.ts';

/** A list's table, its time column, and whether it has a site. */
const LISTS: ReadonlyArray<readonly [table: string, time: string, site: boolean]> = [
  ['alerts', 'raised_at', true],
  ['inspections', 'at', true],
  ['storms', 'start', true],
  ['notices', 'at', true],
  ['violations', 'at', true],
  ['changes', 'effective_at', true],
];

export function v13(db: Db): void {
  for (const [table, time, site] of LISTS) {
    db.exec(`CREATE INDEX IF NOT EXISTS ${table}_page ON ${table} (${time}, id)`);
    if (site) db.exec(`CREATE INDEX IF NOT EXISTS ${table}_site_page ON ${table} (site_id, ${time}, id)`);
  }
}
