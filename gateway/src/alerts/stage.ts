/**
 * The rules as a stage: the compliance engine fed with every committed batch of readings, and the
 * rules' position in the readings table (the `rules` cursor).
 *
 * Readings are stored (and acknowledged) first; the rules then evaluate them into a slice (`slice.ts`)
 * that is committed, with the cursor in the same transaction, every `checkpointMs`, when it holds
 * `batch` readings, at once when an alert opens or closes, before any other change (a tick, a person's
 * action), and at stop. The states, storm records and alert updates of a slice are written once per
 * slice, not once per reading. A crash loses only the slice not yet committed: at start the readings
 * after the cursor are evaluated again from the states committed with it, so the alerts, deadlines,
 * storm records and notifications are those of a run without the crash, none twice.
 *
 * The cursor moves only over readings whose evaluation committed. When a slice's commit fails (the store
 * refused the transaction), the cursor stays before it and later batches are not evaluated past it: the
 * next batch, or the next minute's retry, evaluates from the cursor again, in order, so no reading is
 * skipped.
 */
import type { ComponentHealth, Log, Stage } from '../pipeline.ts';
import { Cursor } from '../store/cursor.ts';
import type { ReadingStore, StoredReading } from '../store/readings.ts';
import type { Db } from '../store/types.ts';
import type { ComplianceEngine } from './engine.ts';

export interface RulesStageOptions {
  db: Db;
  readings: ReadingStore;
  engine: ComplianceEngine;
  log: Log;
  /** How many readings one catch-up transaction evaluates (default 5000). */
  batch?: number;
  /** How soon a failed evaluation is tried again when no new readings come (default 60 s). */
  retryMs?: number;
  /** How long evaluated readings wait for their slice's commit, at most (default 1000 ms; 0: at once). */
  checkpointMs?: number;
  /** A slice holding this many readings is committed at once (default 1000): no commit holds the loop long. */
  sliceReadings?: number;
}

export class RulesStage implements Stage {
  readonly name = 'rules';
  private readonly cursor: Cursor;
  /** The last reading id whose evaluation committed. */
  private evaluatedUpTo: number | undefined;
  private savedUpTo: number | undefined;
  /** The last reading id evaluated into the open slice (the cursor's, when none is open). */
  private stagedUpTo: number | undefined;
  private checkpointTimer: NodeJS.Timeout | undefined;
  /** Why the readings after the cursor are not evaluated yet, while they are not. */
  private behind: string | undefined;
  private retry: NodeJS.Timeout | undefined;
  private running = false;

  constructor(private readonly o: RulesStageOptions) {
    this.cursor = new Cursor(o.db, 'rules');
    this.evaluatedUpTo = this.cursor.read();
    this.savedUpTo = this.evaluatedUpTo;
    this.stagedUpTo = this.evaluatedUpTo;
    o.engine.onSlice({
      inTransaction: (upTo) => this.writeCursor(upTo),
      failed: (e) => this.sliceFailed(e),
    });
  }

  /** For the ingest stage: saves the cursor inside each group commit. */
  readonly inTransaction = (): void => {
    if (this.evaluatedUpTo !== undefined && this.evaluatedUpTo !== this.savedUpTo) {
      this.cursor.write(this.evaluatedUpTo);
      this.savedUpTo = this.evaluatedUpTo;
    }
  };

  /** For the ingest stage: evaluates each committed batch, in order, never past one that failed. */
  readonly onStored = (rs: StoredReading[]): void => {
    if (!this.running) return;
    // The batch follows the last evaluated reading: evaluate it as it is. Otherwise (a failed batch before
    // it, or readings stored before the rules started) evaluate from the cursor, in order.
    if (this.behind === undefined && rs[0]!.id === (this.stagedUpTo ?? 0) + 1 && this.stage(rs)) return;
    this.catchUp();
  };

  /** Commits the open slice now (an import's end: its answer shows what its readings made). */
  readonly settle = (): void => {
    if (this.running) this.checkpoint();
  };

  async start(): Promise<void> {
    if (this.evaluatedUpTo === undefined) {
      // A new store (or one from before the cursor existed): the rules start at the head. The cursor is
      // saved with the next commit if the store cannot take it now (a full disk).
      this.evaluatedUpTo = this.o.readings.head().id;
      this.stagedUpTo = this.evaluatedUpTo;
      this.saveCursor('cannot save the rules cursor at start');
    }
    this.running = true;
    // Readings committed but not yet evaluated when the gateway last stopped are evaluated now.
    this.catchUp();
    this.o.engine.start();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.retry) clearTimeout(this.retry);
    this.retry = undefined;
    if (this.o.db.open) this.checkpoint();
    this.clearCheckpointTimer();
    this.o.engine.stop();
    if (this.o.db.open)
      this.saveCursor('cannot save the rules cursor at stop; evaluation repeats from the last saved one');
  }

  private saveCursor(what: string): void {
    if (this.evaluatedUpTo === undefined || this.evaluatedUpTo === this.savedUpTo) return;
    try {
      this.cursor.write(this.evaluatedUpTo);
      this.savedUpTo = this.evaluatedUpTo;
    } catch (e) {
      // A read-only store: the readings after the saved cursor are evaluated again later (repeats change nothing).
      this.o.log.error({ err: (e as Error).message }, what);
    }
  }

  /** The rules' position, and the engine's clock (`clock.ts`). */
  health(): ComponentHealth[] {
    const rules: ComponentHealth =
      this.behind === undefined
        ? { name: this.name, ok: true, evaluatedUpTo: this.evaluatedUpTo ?? 0 }
        : {
            name: this.name,
            ok: false,
            detail: `readings after ${this.evaluatedUpTo ?? 0} are not evaluated yet: ${this.behind}`,
            evaluatedUpTo: this.evaluatedUpTo ?? 0,
          };
    return [rules, this.o.engine.clockHealth()];
  }

  /** Evaluates readings after the cursor, in id order, until none are left or one batch fails. */
  private catchUp(): void {
    if (!this.checkpoint()) return;
    const size = this.o.batch ?? 5000;
    let caughtUp = 0;
    for (;;) {
      const batch = this.o.readings.after(this.evaluatedUpTo ?? 0, size);
      if (batch.length === 0) break;
      if (!this.stage(batch, true)) return;
      caughtUp += batch.length;
    }
    if (caughtUp > 0) this.o.log.info({ readings: caughtUp }, 'evaluated readings the rules had not seen');
  }

  /** Evaluates readings into the open slice; commits it when due (`now`: at once). False when it failed. */
  private stage(rs: StoredReading[], now = false): boolean {
    const upTo = rs[rs.length - 1]!.id;
    let due: { urgent: boolean; readings: number };
    try {
      due = this.o.engine.stageReadings(rs, upTo);
    } catch (e) {
      // A state the store could not give: the engine dropped the slice; it is evaluated again from the cursor.
      this.sliceFailed(e as Error);
      return false;
    }
    this.stagedUpTo = upTo;
    const ms = this.o.checkpointMs ?? 1000;
    if (now || due.urgent || ms <= 0 || due.readings >= (this.o.sliceReadings ?? 1000))
      return this.checkpoint();
    this.checkpointTimer ??= setTimeout(() => {
      this.checkpointTimer = undefined;
      if (this.running) this.checkpoint();
    }, ms).unref();
    return true;
  }

  /** Commits the open slice with the cursor. False when the commit failed (the slice is evaluated again). */
  private checkpoint(): boolean {
    this.clearCheckpointTimer();
    if (this.o.engine.staged === 0) return true;
    try {
      this.o.engine.commitSlice((upTo) => this.writeCursor(upTo));
    } catch (e) {
      this.sliceFailed(e as Error);
      return false;
    }
    return true;
  }

  /** Inside a slice's transaction: the cursor moves to its last reading. */
  private writeCursor(upTo: number | undefined): void {
    if (upTo === undefined) return;
    this.cursor.write(upTo);
    this.committed(upTo);
  }

  /** The slice up to `upTo` is committed (called in its transaction, which then commits or throws). */
  private committed(upTo: number): void {
    // Held until the transaction's end: a rollback after this line reaches `sliceFailed`, which puts it back.
    this.evaluatedUpTo = upTo;
    this.savedUpTo = upTo;
    if (this.behind !== undefined) this.o.log.info({ upTo }, 'rule evaluation resumed');
    this.behind = undefined;
  }

  /** A slice could not be evaluated or committed: evaluated again, in order, from the cursor in the store. */
  private sliceFailed(e: Error): void {
    this.clearCheckpointTimer();
    const stored = this.o.db.open ? this.cursor.read() : this.savedUpTo;
    this.evaluatedUpTo = stored ?? this.evaluatedUpTo;
    this.savedUpTo = this.evaluatedUpTo;
    this.stagedUpTo = this.evaluatedUpTo;
    const first = this.behind === undefined;
    this.behind = e.message;
    if (first)
      this.o.log.error(
        { err: this.behind, from: (this.evaluatedUpTo ?? 0) + 1 },
        'rule evaluation failed; the readings stay stored and are evaluated again, in order, from here',
      );
    this.scheduleRetry();
  }

  private clearCheckpointTimer(): void {
    if (this.checkpointTimer) clearTimeout(this.checkpointTimer);
    this.checkpointTimer = undefined;
  }

  private scheduleRetry(): void {
    if (this.retry || !this.running) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (this.running) this.catchUp();
    }, this.o.retryMs ?? 60_000);
    this.retry.unref();
  }
}
