import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Registry } from '../../../gateway/src/metrics.ts';
import { PermanentWriteError } from '../../../gateway/src/outputs/influx/errors.ts';
import { readingToLine } from '../../../gateway/src/outputs/influx/lineProtocol.ts';
import { InfluxOutbox } from '../../../gateway/src/outputs/influx/outbox.ts';
import { ReadingsSource } from '../../../gateway/src/outputs/influx/readingsSource.ts';
import type { WriteClient } from '../../../gateway/src/outputs/influx/source.ts';
import { InfluxWriter } from '../../../gateway/src/outputs/influx/writer.ts';
import { silentLog } from '../../../gateway/src/pipeline.ts';
import { Cursor } from '../../../gateway/src/store/cursor.ts';
import { type Db, openDatabase } from '../../../gateway/src/store/db.ts';
import type { ReadingStore, StoredReading } from '../../../gateway/src/store/readings.ts';
import type { Reading } from '../../../shared/src/telemetry.ts';
import { waitFor } from '../../helpers/env.ts';
import { auditAll, readingStore } from '../../helpers/evidence.ts';

const BASE = Date.UTC(2026, 5, 1);

const reading = (seq: number, values: Reading['values'] = { levelIn: 10 + (seq % 50) }): Reading => ({
  siteId: 'oak-lane',
  deviceId: 'tank-1',
  deviceKind: 'septic-tank',
  ts: BASE + seq * 60_000,
  seq,
  receivedAt: BASE + seq * 60_000 + 5,
  transport: 'mqtt',
  values,
});

/** Records every line InfluxDB accepted; `reject` names lines the server refuses for good. */
class FakeClient implements WriteClient {
  written: string[] = [];
  requests: number[] = [];
  constructor(private readonly reject: (line: string) => boolean = () => false) {}
  async write(lines: readonly string[]): Promise<void> {
    const all = lines.flatMap((l) => l.split('\n'));
    this.requests.push(all.length);
    if (all.some(this.reject)) throw new PermanentWriteError(400, 'partial write: field type conflict');
    this.written.push(...all);
  }
}

describe('ReadingsSource: InfluxDB fed from the readings table after a cursor', () => {
  let dir: string;
  let db: Db;
  let store: ReadingStore;
  let outbox: InfluxOutbox;
  let writer: InfluxWriter | undefined;

  const source = (maxBuffered = 1000) =>
    new ReadingsSource({
      db,
      outbox,
      readingsCursor: new Cursor(db, 'influx-readings'),
      outboxCursor: new Cursor(db, 'influx-outbox'),
      maxBuffered,
    });

  /** Stores readings in one commit, as the ingest stage does, and returns them with their ids. */
  const commit = (rs: Reading[]): StoredReading[] =>
    db.transaction(() => rs.map((r) => Object.assign(r, store.insert(r)!) as StoredReading))();

  const seqs = (lines: string[]) => lines.map((l) => Number(/seq=(\d+)i/.exec(l)?.[1]));

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rsrc-'));
    db = openDatabase(dir);
    store = readingStore(db).store;
    outbox = new InfluxOutbox(db);
  });
  afterEach(async () => {
    await writer?.stop();
    writer = undefined;
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = (src: ReadingsSource, client: WriteClient, batchSize = 100) => {
    writer = new InfluxWriter({
      source: src,
      client,
      batchSize,
      flushIntervalMs: 20,
      metrics: new Registry(),
      log: silentLog,
      minBackoffMs: 10,
      maxBackoffMs: 40,
    });
    return writer.start();
  };

  it('serves buffered commits as one row each, then the store past an overflow, in id order', () => {
    const src = source(25);
    src.offer(commit(Array.from({ length: 10 }, (_, i) => reading(i))));
    src.offer(commit(Array.from({ length: 10 }, (_, i) => reading(10 + i))));
    // 20 buffered; the next commit would pass 25: the buffer is dropped, the store has them all.
    src.offer(commit(Array.from({ length: 10 }, (_, i) => reading(20 + i))));
    expect(src.buffered()).toBe(0);
    src.offer(commit(Array.from({ length: 5 }, (_, i) => reading(30 + i))));
    expect(src.buffered()).toBe(5);
    expect(src.depth()).toBe(35);

    const rows = src.peek(100);
    // 30 single rows read back from the store, then the buffered commit as one row of five lines.
    expect(rows.length).toBe(31);
    expect(rows.slice(0, 30).every((r) => r.count === undefined)).toBe(true);
    expect(rows[30]).toMatchObject({ source: 'readings', count: 5, id: 35 });
    const lines = rows.flatMap((r) => r.line.split('\n'));
    expect(seqs(lines)).toEqual(Array.from({ length: 35 }, (_, i) => i));
    // The lines are exactly what the line protocol makes of the stored readings.
    expect(lines[0]).toBe(readingToLine(store.after(0, 1)[0]!));
  });

  it('splits a buffered commit to honour the batch size, and keeps the rest buffered', () => {
    const src = source();
    src.offer(commit(Array.from({ length: 10 }, (_, i) => reading(i))));
    const first = src.peek(4);
    expect(first).toHaveLength(1);
    expect(first[0]!.count).toBe(4);
    expect(seqs(first[0]!.line.split('\n'))).toEqual([0, 1, 2, 3]);
    src.settle(first);
    expect(src.depth()).toBe(6);
    const rest = src.peek(100);
    expect(seqs(rest.flatMap((r) => r.line.split('\n')))).toEqual([4, 5, 6, 7, 8, 9]);
  });

  it('settles into saved cursors: a new source over the same store starts after what was written', async () => {
    const src = source();
    src.offer(commit(Array.from({ length: 30 }, (_, i) => reading(i))));
    const client = new FakeClient();
    await start(src, client, 10);
    await waitFor(() => src.depth() === 0, 3000, 'drained');
    await writer!.stop();
    expect(seqs(client.written)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(new Cursor(db, 'influx-readings').read()).toBe(30);

    // A restart: more readings were stored while the writer was down (nothing buffered for them).
    commit(Array.from({ length: 5 }, (_, i) => reading(30 + i)));
    const again = source();
    expect(again.depth()).toBe(5);
    const client2 = new FakeClient();
    await start(again, client2, 10);
    await waitFor(() => again.depth() === 0, 3000, 'drained after restart');
    expect(seqs(client2.written)).toEqual([30, 31, 32, 33, 34]);
  });

  it('without a saved cursor, every stored reading is sent (history kept before InfluxDB was set up)', () => {
    commit(Array.from({ length: 7 }, (_, i) => reading(i)));
    const src = source();
    expect(src.depth()).toBe(7);
    expect(seqs(src.peek(100).map((r) => r.line))).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('a line InfluxDB rejects inside a buffered commit is found and dead-lettered alone', async () => {
    const src = source();
    src.offer(commit(Array.from({ length: 8 }, (_, i) => reading(i))));
    const client = new FakeClient((line) => line.includes('seq=5i'));
    await start(src, client, 100);
    await waitFor(() => src.depth() === 0, 3000, 'settled');
    expect(seqs(client.written)).toEqual([0, 1, 2, 3, 4, 6, 7]);
    const dead = outbox.deadLetters(10);
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({
      source: 'readings',
      outboxId: 6,
      reason: expect.stringContaining('400'),
    });
    expect(dead[0]!.line).toContain('seq=5i');
    expect(src.deadLetterCount()).toBe(1);
  });

  it('sends queued alert-change lines first and removes them once written', async () => {
    const src = source();
    src.offer(commit([reading(1), reading(2)]));
    outbox.enqueue(['alerts,rule=septic-pumping,site=oak-lane status="open" 1'], BASE);
    expect(src.depth()).toBe(3);
    const client = new FakeClient();
    await start(src, client, 100);
    await waitFor(() => src.depth() === 0, 3000, 'drained');
    expect(client.written[0]).toMatch(/^alerts,/);
    expect(client.written).toHaveLength(3);
    expect(outbox.depth()).toBe(0);
    expect(new Cursor(db, 'influx-outbox').read()).toBeGreaterThan(0);
  });

  it('a commit that does not follow the buffer (a rolled-back commit in between) is read from the store', () => {
    const src = source();
    src.offer(commit([reading(1), reading(2)]));
    // Readings 3 and 4 were stored but never offered (as if their listener had not run).
    commit([reading(3), reading(4)]);
    src.offer(commit([reading(5)]));
    const lines = src.peek(100).flatMap((r) => r.line.split('\n'));
    expect(seqs(lines)).toEqual([1, 2, 3, 4, 5]);
  });

  it('readings missing between the cursor and the buffer (deleted by hand) do not stall the writer', () => {
    const src = source();
    commit([reading(1), reading(2), reading(3)]);
    src.offer(commit([reading(4), reading(5)]));
    db.prepare('DELETE FROM readings WHERE seq IN (2, 3)').run();
    const rows = src.peek(100);
    expect(seqs(rows.flatMap((r) => r.line.split('\n')))).toEqual([1, 4, 5]);
    src.settle(rows);
    expect(src.depth()).toBe(0);
    expect(src.peek(100)).toEqual([]);
  });

  it('reports the age of the oldest waiting reading, and retention keeps what InfluxDB lacks', () => {
    const src = source();
    commit([reading(1), reading(2), reading(3)]);
    expect(src.oldestEnqueuedAt()).toBe(BASE + 60_000 + 5);
    src.settle(src.peek(1));
    expect(src.writtenUpTo()).toBe(1);
    expect(src.oldestEnqueuedAt()).toBe(BASE + 2 * 60_000 + 5);
    // Everything is older than the retention horizon, but only the written reading may go.
    const res = store.prune(BASE + 86_400_000, 1000, BASE, src.writtenUpTo());
    expect(res.readings).toBe(1);
    expect(store.after(0, 10).map((r) => r.seq)).toEqual([2, 3]);
    expect(auditAll(db).problems).toEqual([]);
  });
});
