import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InfluxOutbox } from '../../../gateway/src/outputs/influx/outbox.ts';
import { migrate } from '../../../gateway/src/store/schema/index.ts';

describe('InfluxOutbox', () => {
  let db: Database.Database;
  let outbox: InfluxOutbox;

  beforeEach(() => {
    db = new Database(':memory:');
    migrate(db);
    outbox = new InfluxOutbox(db);
  });
  afterEach(() => db.close());

  it('keeps lines in id order and skips empty ones', () => {
    outbox.enqueue(['a', '', 'b'], 1000);
    outbox.enqueue(['c'], 2000);
    expect(outbox.peek(10).map((r) => r.line)).toEqual(['a', 'b', 'c']);
    expect(outbox.peek(2).map((r) => r.line)).toEqual(['a', 'b']);
    const ids = outbox.peek(10).map((r) => r.id);
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    expect(outbox.depth()).toBe(3);
    expect(outbox.oldestEnqueuedAt()).toBe(1000);
  });

  it('removes a prefix up to an id', () => {
    outbox.enqueue(['a', 'b', 'c', 'd'], 1);
    const rows = outbox.peek(10);
    expect(outbox.remove({ upToId: rows[1]!.id })).toBe(2);
    expect(outbox.peek(10).map((r) => r.line)).toEqual(['c', 'd']);
    expect(outbox.depth()).toBe(2);
    outbox.remove({ upToId: rows[3]!.id });
    expect(outbox.depth()).toBe(0);
    expect(outbox.oldestEnqueuedAt()).toBeUndefined();
  });

  it('counts correctly after removing rows from the middle', () => {
    outbox.enqueue(['a', 'b', 'c', 'd', 'e'], 1);
    const rows = outbox.peek(10);
    expect(outbox.remove([rows[2]!.id])).toBe(1);
    expect(outbox.depth()).toBe(4);
    outbox.enqueue(['f'], 2);
    expect(outbox.depth()).toBe(5);
    expect(outbox.peek(10).map((r) => r.line)).toEqual(['a', 'b', 'd', 'e', 'f']);
  });

  it('moves rows to the dead-letter table with the reason', () => {
    outbox.enqueue(['good', 'bad'], 1);
    const [, bad] = outbox.peek(10);
    expect(outbox.deadLetter([bad!], '400 field type conflict', 5)).toBe(1);
    expect(outbox.peek(10).map((r) => r.line)).toEqual(['good']);
    expect(outbox.deadLetterCount()).toBe(1);
    expect(outbox.deadLetters(10)).toEqual([
      {
        id: expect.any(Number),
        source: 'outbox',
        outboxId: bad!.id,
        line: 'bad',
        reason: '400 field type conflict',
        at: 5,
      },
    ]);
    // A row that is no longer in the outbox is not dead-lettered twice.
    expect(outbox.deadLetter([bad!], 'again')).toBe(0);
    expect(outbox.deadLetterCount()).toBe(1);
  });

  it('enqueues inside the caller transaction: rolled back with it, committed with it', () => {
    db.exec('CREATE TABLE scratch (id INTEGER PRIMARY KEY, v TEXT)');
    const insert = db.prepare('INSERT INTO scratch (v) VALUES (?)');
    const ingest = db.transaction((v: string, fail: boolean) => {
      insert.run(v);
      outbox.enqueue([`line ${v}`]);
      if (fail) throw new Error('constraint');
    });
    expect(() => ingest('x', true)).toThrow('constraint');
    expect(outbox.depth()).toBe(0);
    expect(db.prepare('SELECT count(*) AS n FROM scratch').get()).toEqual({ n: 0 });
    ingest('y', false);
    expect(outbox.depth()).toBe(1);
    expect(outbox.peek(5).map((r) => r.line)).toEqual(['line y']);
  });

  it('survives a reopen of the store (depth and dead letters come from the tables)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'outbox-'));
    try {
      const file = join(dir, 'g.db');
      const d1 = new Database(file);
      d1.pragma('journal_mode = WAL');
      migrate(d1);
      const o1 = new InfluxOutbox(d1);
      o1.enqueue(['a', 'b', 'c'], 10);
      o1.deadLetter([o1.peek(1)[0]!], 'bad');
      d1.close();
      const d2 = new Database(file);
      const o2 = new InfluxOutbox(d2);
      expect(o2.depth()).toBe(2);
      expect(o2.deadLetterCount()).toBe(1);
      expect(o2.peek(5).map((r) => r.line)).toEqual(['b', 'c']);
      o2.enqueue(['d']);
      expect(o2.peek(5).map((r) => r.line)).toEqual(['b', 'c', 'd']);
      d2.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
