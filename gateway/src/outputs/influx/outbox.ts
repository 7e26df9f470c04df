/**
 * The durable queue of line-protocol lines waiting for InfluxDB, in the gateway's SQLite store, and
 * the dead-letter table of lines InfluxDB rejected for good.
 *
 * Readings need no queue of their own: the readings table is append-only, so the writer keeps a cursor
 * in it (see readingsSource.ts). This queue holds the other lines (alert changes, storms, checkpoints),
 * enqueued once their change is committed. The tables' DDL is in store/schema/. It drains from the
 * head, in id order: rows leave
 * as a prefix (written, or moved to the dead-letter table), which is what lets depth() be two index
 * lookups instead of a COUNT(*).
 */
import type Database from 'better-sqlite3';
import type { InfluxSource } from './source.ts';

export interface OutboxRow {
  id: number;
  line: string;
}

/** Where a dead letter's row came from: the readings table (a reading's id) or this queue. */
export type DeadLetterSource = 'readings' | 'outbox';

/** A line to keep as a dead letter, with the row it came from. */
export interface DeadLine {
  source: DeadLetterSource;
  id: number;
  line: string;
}

export interface DeadLetter {
  id: number;
  source: DeadLetterSource;
  outboxId: number | null;
  line: string | null;
  reason: string | null;
  at: number | null;
}

export class InfluxOutbox implements InfluxSource<OutboxRow> {
  private readonly insertStmt: Database.Statement<[string, number]>;
  private readonly peekStmt: Database.Statement<[number], OutboxRow>;
  private readonly peekAfterStmt: Database.Statement<[number, number], OutboxRow>;
  private readonly minMaxStmt: Database.Statement<[], { lo: number | null; hi: number | null }>;
  private readonly countStmt: Database.Statement<[], { n: number }>;
  private readonly oldestStmt: Database.Statement<[], { enqueued_at: number }>;
  private readonly deleteUpToStmt: Database.Statement<[number]>;
  private readonly deleteOneStmt: Database.Statement<[number]>;
  private readonly deadInsertStmt: Database.Statement<[DeadLetterSource, number, string, string, number]>;
  private readonly deadListStmt: Database.Statement<[number], DeadLetter>;
  private readonly deadCountStmt: Database.Statement<[], { n: number }>;
  private readonly enqueueTx: (lines: readonly string[], now: number) => number;
  private readonly removeIdsTx: (ids: readonly number[]) => number;
  private readonly deadLetterTx: (rows: readonly OutboxRow[], reason: string, now: number) => number;
  private readonly recordDeadTx: (rows: readonly DeadLine[], reason: string, now: number) => void;
  /** Set when rows were removed from the middle of the queue; depth() then counts until the queue empties. */
  private gaps = false;
  private deadCount: number;

  constructor(db: Database.Database) {
    this.insertStmt = db.prepare('INSERT INTO influx_outbox (line, enqueued_at) VALUES (?, ?)');
    this.peekStmt = db.prepare('SELECT id, line FROM influx_outbox ORDER BY id LIMIT ?');
    this.peekAfterStmt = db.prepare('SELECT id, line FROM influx_outbox WHERE id > ? ORDER BY id LIMIT ?');
    this.minMaxStmt = db.prepare(
      'SELECT (SELECT id FROM influx_outbox ORDER BY id ASC LIMIT 1) AS lo, (SELECT id FROM influx_outbox ORDER BY id DESC LIMIT 1) AS hi',
    );
    this.countStmt = db.prepare('SELECT count(*) AS n FROM influx_outbox');
    this.oldestStmt = db.prepare('SELECT enqueued_at FROM influx_outbox ORDER BY id LIMIT 1');
    this.deleteUpToStmt = db.prepare('DELETE FROM influx_outbox WHERE id <= ?');
    this.deleteOneStmt = db.prepare('DELETE FROM influx_outbox WHERE id = ?');
    this.deadInsertStmt = db.prepare(
      'INSERT INTO influx_dead_letter (source, outbox_id, line, reason, at) VALUES (?, ?, ?, ?, ?)',
    );
    this.deadListStmt = db.prepare(
      'SELECT id, source, outbox_id AS outboxId, line, reason, at FROM influx_dead_letter ORDER BY id DESC LIMIT ?',
    );
    this.deadCountStmt = db.prepare('SELECT count(*) AS n FROM influx_dead_letter');

    // db.transaction() nests: inside a caller's open transaction it runs as a savepoint, so enqueue()
    // commits or rolls back with the caller's work.
    this.enqueueTx = db.transaction((lines: readonly string[], now: number) => {
      let n = 0;
      for (const line of lines) {
        if (line === '') continue;
        this.insertStmt.run(line, now);
        n++;
      }
      return n;
    });
    this.removeIdsTx = db.transaction((ids: readonly number[]) => {
      let n = 0;
      for (const id of ids) n += this.deleteOneStmt.run(id).changes;
      return n;
    });
    this.recordDeadTx = db.transaction((rows: readonly DeadLine[], reason: string, now: number) => {
      for (const r of rows) this.deadInsertStmt.run(r.source, r.id, r.line, reason, now);
    });
    this.deadLetterTx = db.transaction((rows: readonly OutboxRow[], reason: string, now: number) => {
      let n = 0;
      for (const r of rows) {
        if (this.deleteOneStmt.run(r.id).changes === 0) continue;
        this.deadInsertStmt.run('outbox', r.id, r.line, reason, now);
        n++;
      }
      return n;
    });

    this.gaps = this.hasGaps();
    this.deadCount = this.deadCountStmt.get()?.n ?? 0;
  }

  /**
   * Appends lines (empty strings are skipped). Synchronous; safe inside the caller's open
   * transaction, where the rows become part of that transaction.
   */
  enqueue(lines: readonly string[], now: number = Date.now()): number {
    if (lines.length === 0) return 0;
    return this.enqueueTx(lines, now);
  }

  /** The oldest `limit` rows after an id, in id order. */
  peekAfter(id: number, limit: number): OutboxRow[] {
    return this.peekAfterStmt.all(id, Math.max(0, Math.floor(limit)));
  }

  /** The oldest `limit` rows, in id order. */
  peek(limit: number): OutboxRow[] {
    return this.peekStmt.all(Math.max(0, Math.floor(limit)));
  }

  /** Removes the given rows, or every row up to and including `upToId`. Returns how many were removed. */
  remove(which: readonly number[] | { upToId: number }): number {
    if (!Array.isArray(which)) return this.deleteUpToStmt.run((which as { upToId: number }).upToId).changes;
    const ids = which as readonly number[];
    if (ids.length === 0) return 0;
    this.noteRemoval(ids);
    return this.removeIdsTx(ids);
  }

  /** The given rows (a prefix of the last peek) were written: they leave the queue. */
  settle(rows: readonly OutboxRow[]): void {
    if (rows.length) this.remove({ upToId: rows[rows.length - 1]!.id });
  }

  /** Records dead letters whose rows live elsewhere (or were already removed from this queue). */
  recordDeadLetters(rows: readonly DeadLine[], reason: string, now: number = Date.now()): void {
    if (rows.length === 0) return;
    this.recordDeadTx(rows, reason, now);
    this.deadCount += rows.length;
  }

  /** Moves rows to the dead-letter table with a reason, atomically. Returns how many were moved. */
  deadLetter(rows: readonly OutboxRow[], reason: string, now: number = Date.now()): number {
    if (rows.length === 0) return 0;
    this.noteRemoval(rows.map((r) => r.id));
    const n = this.deadLetterTx(rows, reason, now);
    this.deadCount += n;
    return n;
  }

  /** Rows waiting. Cheap (index lookups), read on every /metrics scrape. */
  depth(): number {
    const { lo, hi } = this.minMaxStmt.get() ?? { lo: null, hi: null };
    if (lo === null || hi === null) {
      this.gaps = false;
      return 0;
    }
    if (this.gaps) return this.countStmt.get()?.n ?? 0;
    return hi - lo + 1;
  }

  /** Enqueue time (epoch ms) of the oldest waiting row, or undefined when the queue is empty. */
  oldestEnqueuedAt(): number | undefined {
    return this.oldestStmt.get()?.enqueued_at;
  }

  /** The newest dead letters first. */
  deadLetters(limit = 100): DeadLetter[] {
    return this.deadListStmt.all(Math.max(0, Math.floor(limit)));
  }

  deadLetterCount(): number {
    return this.deadCount;
  }

  /** A removal that is not a prefix of the queue leaves a hole that max-min cannot see. */
  private noteRemoval(ids: readonly number[]): void {
    if (this.gaps) return;
    const { lo } = this.minMaxStmt.get() ?? { lo: null };
    if (lo === null) return;
    const sorted = [...ids].sort((a, b) => a - b);
    for (let i = 0; i < sorted.length; i++) {
      if (sorted[i] !== lo + i) {
        this.gaps = true;
        return;
      }
    }
  }

  private hasGaps(): boolean {
    const { lo, hi } = this.minMaxStmt.get() ?? { lo: null, hi: null };
    if (lo === null || hi === null) return false;
    return hi - lo + 1 !== (this.countStmt.get()?.n ?? 0);
  }
}
