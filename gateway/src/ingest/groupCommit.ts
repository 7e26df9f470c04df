/**
 * Group commit: everything handed to the stage in one go is written to the local store in one
 * transaction, and only then is each message told its outcome, so transports acknowledge durable data
 * only. A failed commit tells every message of it the error instead; nothing of it is acknowledged.
 */
import type { Reading } from '../../../shared/src/telemetry.ts';
import { type IngestResult, type Log, RefusedError } from '../pipeline.ts';
import type { QuarantineRecord, QuarantineRows } from '../quarantine/rows.ts';
import type { ReadingStore, RejectionRecord, StoredReading } from '../store/readings.ts';
import type { Db } from '../store/types.ts';
import type { WriteGate } from '../store/writeGate.ts';
import type { IngestMetrics } from './metrics.ts';
import type { SampleWindow } from './rejectionSampler.ts';

/** Told the outcome once it is committed (or that the commit failed). */
export type Settle = (err: Error | null, result?: IngestResult) => void;

export type Pending =
  | { kind: 'reading'; reading: Reading; settle: Settle }
  | {
      kind: 'rejection';
      rec: RejectionRecord;
      /** Its sample window; `store` false counts it onto the window's stored row instead of a row of its own. */
      window?: SampleWindow;
      store: boolean;
      settle: Settle;
    }
  | { kind: 'quarantine'; rec: QuarantineRecord; settle: Settle };

export interface GroupCommitOptions {
  db: Db;
  store: ReadingStore;
  metrics: IngestMetrics;
  log: Log;
  /** Largest group commit (default 5000): a batch this large is committed at once. */
  maxBatch?: number;
  /** Runs inside every group commit's transaction (e.g. to persist a cursor without a commit of its own). */
  inTransaction?: () => void;
  /** After a commit, before any message is told: the readings it stored. */
  applied: (stored: StoredReading[]) => void;
  /** A reading whose commit failed: it was not stored, and may come again. */
  rolledBack: (reading: Reading) => void;
  /** A commit failed: the sample windows' row ids may not exist. */
  rejectionsRolledBack?: () => void;
  /** Whether the store takes writes; while it does not, every batch is refused at once. */
  gate?: WriteGate;
  /** The rejection table's row cap, kept as rows are added (default 1000). */
  rejectionsKept?: number;
  /** The quarantine table, for messages kept until they can be used. */
  quarantine?: QuarantineRows;
  /** A quarantined message whose commit failed: it was not kept. */
  quarantineRolledBack?: (rec: QuarantineRecord) => void;
}

export class GroupCommit {
  private pending: Pending[] = [];
  private scheduled = false;
  private listeners: Array<(readings: StoredReading[]) => void> = [];
  private readonly maxBatch: number;
  private failure: string | undefined;
  private rejectionRowsSinceCap = 0;

  constructor(private readonly o: GroupCommitOptions) {
    this.maxBatch = o.maxBatch ?? 5000;
  }

  /** Listeners run after each commit with the readings it stored (not duplicates), in commit order. */
  onStored(fn: (readings: StoredReading[]) => void): void {
    this.listeners.push(fn);
  }

  /** Messages waiting for the next commit. */
  get waiting(): number {
    return this.pending.length;
  }

  /** Why the last commit failed, while no commit has succeeded since. */
  get failing(): string | undefined {
    return this.failure;
  }

  add(p: Pending): void {
    this.pending.push(p);
    if (this.pending.length >= this.maxBatch) {
      this.commit();
      return;
    }
    if (this.scheduled) return;
    this.scheduled = true;
    // The group commit runs as soon as the current callback returns: a transport hands over everything
    // it has read in one go (MQTT parses a whole socket read at once), and that batch is committed and
    // acknowledged right away instead of waiting for every other socket's batch in this turn of the event
    // loop. Short-lived messages are also cheap for the garbage collector.
    queueMicrotask(() => {
      this.scheduled = false;
      if (this.pending.length) this.commit();
    });
  }

  /** Commits what is waiting now (at stop). */
  flush(): void {
    if (this.pending.length) this.commit();
  }

  /** One transaction for everything pending; then the messages are told and listeners run. */
  private commit(): void {
    const batch = this.pending;
    this.pending = [];
    const readOnly = this.o.gate?.readOnly;
    if (readOnly !== undefined) {
      this.refuseAll(batch, readOnly);
      return;
    }
    const started = performance.now();
    const stored: StoredReading[] = [];
    const outcomes: IngestResult[] = new Array(batch.length);
    const { store, metrics: m } = this.o;
    const touched = new Set<SampleWindow>();
    try {
      this.o.db.transaction(() => {
        let rejections = 0;
        let quarantined = 0;
        // Batched: the readings' evidence-log entries are written together at the end.
        store.batch(() => {
          for (let i = 0; i < batch.length; i++) {
            const p = batch[i]!;
            if (p.kind === 'rejection') {
              if (p.store) {
                const id = store.insertRejectionRow(p.rec);
                if (p.window) p.window.rowId = id;
                rejections++;
              } else if (p.window) {
                p.window.pending++;
                touched.add(p.window);
              }
              outcomes[i] = { status: 'rejected', reason: p.rec.reason, detail: p.rec.detail };
              continue;
            }
            if (p.kind === 'quarantine') {
              if (!this.o.quarantine) throw new Error('no quarantine table to keep the message in');
              const id = this.o.quarantine.insert(p.rec);
              quarantined++;
              outcomes[i] = { status: 'quarantined', reason: p.rec.reason, detail: p.rec.detail, id };
              continue;
            }
            const row = store.insert(p.reading);
            if (!row) {
              outcomes[i] = { status: 'duplicate', reading: p.reading };
              continue;
            }
            stored.push(Object.assign(p.reading, row));
            outcomes[i] = { status: 'stored', reading: p.reading };
          }
        });
        for (const w of touched) {
          if (w.rowId !== undefined) store.addSuppressed(w.rowId, w.pending);
          w.pending = 0;
        }
        this.capRejections(rejections);
        this.o.inTransaction?.();
        m.rows.inc({ table: 'readings' }, stored.length);
        if (rejections) m.rows.inc({ table: 'rejections' }, rejections);
        if (quarantined) m.rows.inc({ table: 'quarantine' }, quarantined);
      })();
    } catch (e) {
      for (const w of touched) w.pending = 0;
      this.failed(batch, e as Error);
      return;
    }
    this.failure = undefined;
    this.o.gate?.succeeded();
    m.commits.inc();
    m.commitSeconds.observe((performance.now() - started) / 1000);
    this.o.applied(stored);
    for (let i = 0; i < batch.length; i++) {
      const o = outcomes[i]!;
      const p = batch[i]!;
      if (p.kind === 'reading') m.count(p.reading.transport, o.status);
      else if (p.kind === 'quarantine') {
        m.count(p.rec.transport, 'quarantined');
        m.quarantined.inc({ reason: p.rec.reason });
      }
      p.settle(null, o);
    }
    if (stored.length)
      for (const fn of this.listeners) {
        try {
          fn(stored);
        } catch (e) {
          this.o.log.error({ err: (e as Error).message }, 'a stored-readings listener failed');
        }
      }
  }

  /** Keeps the rejection table at its row cap, a little at a time rather than at every row. */
  private capRejections(added: number): void {
    const keep = this.o.rejectionsKept ?? 1000;
    this.rejectionRowsSinceCap += added;
    if (this.rejectionRowsSinceCap < Math.max(1, Math.min(100, keep / 10))) return;
    this.rejectionRowsSinceCap = 0;
    this.o.store.capRejections(keep);
  }

  /** The store is read-only: nothing of the batch is tried, every message is refused with the reason. */
  private refuseAll(batch: Pending[], reason: string): void {
    const err = new RefusedError('store_read_only', `local store read-only: ${reason}`);
    this.o.rejectionsRolledBack?.();
    this.o.metrics.refused.inc({ reason: 'store_read_only' }, batch.length);
    for (const p of batch) {
      this.undo(p);
      p.settle(err);
    }
  }

  /** What a message not committed leaves behind is forgotten (its duplicate stamp, its place in a cap). */
  private undo(p: Pending): void {
    if (p.kind === 'reading') this.o.rolledBack(p.reading);
    else if (p.kind === 'quarantine') this.o.quarantineRolledBack?.(p.rec);
  }

  /** The transaction rolled back: the evidence log's edge is read again and every message is told the error. */
  private failed(batch: Pending[], e: Error): void {
    this.o.store.resyncHead();
    this.o.rejectionsRolledBack?.();
    this.o.gate?.failed(e);
    this.failure = e.message;
    const err = new Error(`local store commit failed: ${e.message}`);
    this.o.log.error(
      { err: e.message, batch: batch.length },
      'store commit failed; messages not acknowledged',
    );
    for (const p of batch) {
      this.undo(p);
      p.settle(err);
    }
  }
}
