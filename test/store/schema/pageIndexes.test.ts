/**
 * The lists' pages read by index (schema version 13): the page after a cursor, over every site and
 * within one, is found in an index in its own order, with no table scan and no sort of the whole table,
 * on a store with enough rows that SQLite's planner has to choose.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../gateway/src/store/db.ts';
import { pageSql } from '../../../gateway/src/store/page.ts';
import type { Db } from '../../../gateway/src/store/types.ts';

/** Each list's table and the columns its page is ordered by (as its store calls pageSql). */
const LISTS = [
  ['alerts', 'raised_at', 'id'],
  ['inspections', 'at', 'id'],
  ['storms', 'start', 'id'],
  ['notices', 'at', 'id'],
  ['violations', 'at', 'id'],
  ['changes', 'effective_at', 'id'],
] as const;

describe("the lists' pages", () => {
  let dir: string;
  let db: Db;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pages-'));
    db = openDatabase(dir, { synchronous: 'normal' });
    // Statistics as a store with many rows has them: the planner weighs indexes by these.
    db.exec('ANALYZE');
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const plan = (sql: string, args: unknown[]) =>
    (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as Array<{ detail: string }>).map((r) => r.detail);

  for (const [table, time, id] of LISTS) {
    it(`${table}: a page after a cursor is read from an index in its order, of every site and of one`, () => {
      const page = pageSql(time, id, { limit: 100, after: [1_700_000_000_000, 'x'] }, '');
      const all = plan(`SELECT * FROM ${table} WHERE ${page.cond[0]} ${page.tail}`, [1_700_000_000_000, 'x']);
      const one = plan(`SELECT * FROM ${table} WHERE site_id = ? AND ${page.cond[0]} ${page.tail}`, [
        'maple-ridge',
        1_700_000_000_000,
        'x',
      ]);
      for (const p of [all, one]) {
        expect(p.join('; ')).toMatch(/USING (COVERING )?INDEX/);
        expect(p.join('; ')).not.toMatch(/SCAN|TEMP B-TREE/);
      }
    });
  }
});
