/**
 * What InfluxDB still lacks: the stored readings after the writer's readings cursor, and the queued
 * alert-change lines (InfluxOutbox) after its outbox cursor.
 *
 * The readings table is append-only and its ids grow without gaps above the cursor, so a cursor is
 * all the telemetry queue needs: a reading is written to the store once, not once more into a queue
 * and deleted again. The lines of each commit's readings are offered to a bounded buffer in memory, as
 * one string per commit (few objects for the garbage collector to carry), and the writer takes them
 * from there; whatever the buffer does not hold (a backlog from an outage, a restart, a buffer
 * overflow) is read back from the store and turned into lines on the way out. The cursors are saved
 * with each settled batch, and after a crash the writer starts again from them; a line InfluxDB
 * already has is rewritten harmlessly (same series, time and fields).
 */
import type { Cursor } from '../../store/cursor.ts';
import { rowToReading, type StoredReading } from '../../store/readings.ts';
import type { Db } from '../../store/types.ts';
import { readingToLine } from './lineProtocol.ts';
import type { DeadLetterSource, InfluxOutbox } from './outbox.ts';
import type { InfluxSource, SourceRow } from './source.ts';

export interface ReadingsSourceRow extends SourceRow {
  source: DeadLetterSource;
  /** For a row of several buffered lines: the reading id of each line. */
  ids?: number[];
}

/** The lines of consecutive readings `from`..`to`, joined by newlines; `ids` are those with a line. */
interface Segment {
  from: number;
  to: number;
  ids: number[];
  text: string;
}

export interface ReadingsSourceOptions {
  db: Db;
  /** The alert-change queue, drained before readings; written rows are removed from it. */
  outbox: InfluxOutbox;
  /** The last reading id settled (written or dead-lettered); absent: every stored reading is sent. */
  readingsCursor: Cursor;
  /** The last outbox id settled. */
  outboxCursor: Cursor;
  /** Lines held in memory at most; past that, lines are read back from the store. */
  maxBuffered: number;
  toLine?: (r: StoredReading) => string;
}

export class ReadingsSource implements InfluxSource<ReadingsSourceRow> {
  private readonly o: ReadingsSourceOptions;
  private readonly toLine: (r: StoredReading) => string;
  private readings: number;
  private outboxAt: number;
  /** Newest stored reading id known. */
  private tip: number;
  /** Buffered segments, covering consecutive reading ids, oldest first from index `head`. */
  private segments: Segment[] = [];
  private head = 0;
  private bufferedLines = 0;
  private readonly readingsAfter;
  private readonly oldestStmt;
  private readonly save: (readings: number, outbox: number | undefined) => void;

  constructor(o: ReadingsSourceOptions) {
    this.o = o;
    this.toLine = o.toLine ?? readingToLine;
    this.readings = o.readingsCursor.read() ?? 0;
    this.outboxAt = o.outboxCursor.read() ?? 0;
    this.readingsAfter = o.db.prepare<[number, number], Record<string, unknown>>(
      `SELECT id, site_id, device_id, kind, ts, seq, received_at, transport, data, '' AS hash FROM readings
       WHERE id > ? ORDER BY id LIMIT ?`,
    );
    this.oldestStmt = o.db.prepare<[number], { at: number }>(
      'SELECT received_at AS at FROM readings WHERE id > ? ORDER BY id LIMIT 1',
    );
    this.tip = o.db.prepare<[], { id: number | null }>('SELECT max(id) AS id FROM readings').get()?.id ?? 0;
    this.save = o.db.transaction((readings: number, outbox: number | undefined) => {
      o.readingsCursor.write(readings);
      if (outbox !== undefined) {
        o.outboxCursor.write(outbox);
        o.outbox.remove({ upToId: outbox });
      }
    });
  }

  /** Readings just committed (in id order): their lines wait in memory for the writer. */
  offer(stored: readonly StoredReading[]): void {
    if (stored.length === 0) return;
    const from = stored[0]!.id;
    const to = stored[stored.length - 1]!.id;
    if (to > this.tip) this.tip = to;
    const last = this.segments[this.segments.length - 1];
    // Not right after what is buffered (a commit rolled back in between), or too much waiting: the store
    // has these readings, and the writer reads them back from there.
    if (this.head < this.segments.length && last && from !== last.to + 1) this.clearBuffer();
    if (this.bufferedLines + stored.length > this.o.maxBuffered) {
      this.clearBuffer();
      return;
    }
    const ids: number[] = [];
    const lines: string[] = [];
    for (const r of stored) {
      const line = this.toLine(r);
      if (line === '') continue;
      lines.push(line);
      ids.push(r.id);
    }
    // One flat string per commit: the single lines die young, the buffer holds one object per commit.
    this.segments.push({ from, to, ids, text: lines.join('\n') });
    this.bufferedLines += stored.length;
  }

  /** Alert changes first (few, and the ones an operator watches for), then readings in id order. */
  peek(limit: number): ReadingsSourceRow[] {
    const out: ReadingsSourceRow[] = [];
    for (const r of this.o.outbox.peekAfter(this.outboxAt, limit))
      out.push({ source: 'outbox', id: r.id, line: r.line });
    let want = limit - out.length;
    let next = this.readings + 1;
    this.dropSettled();
    const bufferedFrom = this.head < this.segments.length ? this.segments[this.head]!.from : undefined;
    // From the store: what lies before the buffer (or everything, when nothing is buffered).
    if (want > 0 && (bufferedFrom === undefined || next < bufferedFrom)) {
      const upTo = bufferedFrom === undefined ? Number.POSITIVE_INFINITY : bufferedFrom - 1;
      for (const row of this.readingsAfter.all(this.readings, want)) {
        const id = row.id as number;
        if (id > upTo) {
          // The store holds nothing more before the buffer.
          next = bufferedFrom!;
          break;
        }
        out.push({ source: 'readings', id, line: this.toLine(rowToReading(row)) });
        next = id + 1;
        want--;
      }
    }
    // From memory: the buffer continues exactly where the store left off.
    if (want > 0 && bufferedFrom !== undefined && next === bufferedFrom) {
      for (let i = this.head; i < this.segments.length && want > 0; i++) {
        let seg = this.segments[i]!;
        if (seg.to - seg.from + 1 > want) {
          // Take the first `want` readings of this segment; the rest stays buffered.
          this.splitSegment(i, seg.from + want - 1);
          seg = this.segments[i]!;
        }
        out.push({ source: 'readings', id: seg.to, line: seg.text, count: seg.ids.length, ids: seg.ids });
        want -= seg.to - seg.from + 1;
      }
    }
    return out;
  }

  /** A row of several buffered lines as rows of one line each. */
  split(row: ReadingsSourceRow): ReadingsSourceRow[] {
    if (!row.ids || row.ids.length <= 1) return [row];
    const lines = row.line.split('\n');
    return row.ids.map((id, i) => ({ source: row.source, id, line: lines[i] ?? '' }));
  }

  settle(rows: readonly ReadingsSourceRow[]): void {
    if (rows.length === 0) return;
    let readings = this.readings;
    let outbox: number | undefined;
    for (const r of rows) {
      if (r.source === 'readings') readings = Math.max(readings, r.id);
      else outbox = Math.max(outbox ?? this.outboxAt, r.id);
    }
    // Saved before it counts: if the save fails, the writer reports a store error and sends the batch again.
    this.save(readings, outbox);
    this.readings = readings;
    if (outbox !== undefined) this.outboxAt = outbox;
    this.dropSettled();
  }

  deadLetter(rows: readonly ReadingsSourceRow[], reason: string, now: number): number {
    if (rows.length === 0) return 0;
    this.o.outbox.recordDeadLetters(
      rows.map((r) => ({ source: r.source, id: r.ids?.length === 1 ? r.ids[0]! : r.id, line: r.line })),
      reason,
      now,
    );
    this.settle(rows);
    return rows.length;
  }

  /** Readings after the cursor (ids above it are contiguous: the table is append-only) plus queued lines. */
  depth(): number {
    return Math.max(0, this.tip - this.readings) + this.o.outbox.depth();
  }

  oldestEnqueuedAt(): number | undefined {
    const a = this.oldestStmt.get(this.readings)?.at;
    const b = this.o.outbox.oldestEnqueuedAt();
    if (a === undefined) return b;
    if (b === undefined) return a;
    return Math.min(a, b);
  }

  deadLetterCount(): number {
    return this.o.outbox.deadLetterCount();
  }

  /** The last reading id InfluxDB has (or that was dead-lettered): retention must not go past it. */
  writtenUpTo(): number {
    return this.readings;
  }

  /** Readings held in memory (for tests). */
  buffered(): number {
    return this.bufferedLines;
  }

  private dropSettled(): void {
    while (this.head < this.segments.length && this.segments[this.head]!.to <= this.readings) {
      const seg = this.segments[this.head]!;
      this.bufferedLines -= seg.to - seg.from + 1;
      this.head++;
    }
    if (this.head === this.segments.length) this.clearBuffer();
    else if (this.head > 1024) {
      this.segments = this.segments.slice(this.head);
      this.head = 0;
    }
  }

  /** Splits segment i after reading id `at`, in place. */
  private splitSegment(i: number, at: number): void {
    const seg = this.segments[i]!;
    const lines = seg.text === '' ? [] : seg.text.split('\n');
    const k = seg.ids.findIndex((id) => id > at);
    const cut = k === -1 ? seg.ids.length : k;
    const left: Segment = {
      from: seg.from,
      to: at,
      ids: seg.ids.slice(0, cut),
      text: lines.slice(0, cut).join('\n'),
    };
    const right: Segment = {
      from: at + 1,
      to: seg.to,
      ids: seg.ids.slice(cut),
      text: lines.slice(cut).join('\n'),
    };
    this.segments.splice(i, 1, left, right);
  }

  private clearBuffer(): void {
    this.segments = [];
    this.head = 0;
    this.bufferedLines = 0;
  }
}
