/**
 * The rules as a stage: the compliance engine fed with every committed batch of readings, and the
 * rules' position in the readings table (the `rules` cursor).
 *
 * The cursor moves only over readings whose evaluation committed. It is saved inside the next group
 * commit (`inTransaction`), so it costs no commit of its own; at start the readings after it are
 * evaluated (those stored before a crash, or whose evaluation failed). When a batch's evaluation fails
 * (the store refused the transaction), the cursor stays before it and later batches are not evaluated
 * past it: the next batch, or the next minute's retry, evaluates from the cursor again, in order, so no
 * reading is skipped. Evaluators ignore a reading they have seen, so a repeated one changes nothing.
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
}

export class RulesStage implements Stage {
  readonly name = 'rules';
  private readonly cursor: Cursor;
  /** The last reading id whose evaluation committed. */
  private evaluatedUpTo: number | undefined;
  private savedUpTo: number | undefined;
  /** Why the readings after the cursor are not evaluated yet, while they are not. */
  private behind: string | undefined;
  private retry: NodeJS.Timeout | undefined;
  private running = false;

  constructor(private readonly o: RulesStageOptions) {
    this.cursor = new Cursor(o.db, 'rules');
    this.evaluatedUpTo = this.cursor.read();
    this.savedUpTo = this.evaluatedUpTo;
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
    if (this.behind === undefined && rs[0]!.id === (this.evaluatedUpTo ?? 0) + 1 && this.evaluate(rs)) return;
    this.catchUp();
  };

  async start(): Promise<void> {
    if (this.evaluatedUpTo === undefined) {
      // A new store (or one from before the cursor existed): the rules start at the head. The cursor is
      // saved with the next commit if the store cannot take it now (a full disk).
      this.evaluatedUpTo = this.o.readings.head().id;
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
    const size = this.o.batch ?? 5000;
    let caughtUp = 0;
    for (;;) {
      const batch = this.o.readings.after(this.evaluatedUpTo ?? 0, size);
      if (batch.length === 0) break;
      if (!this.evaluate(batch)) return;
      caughtUp += batch.length;
      // Saved now: a catch-up may run without a group commit to carry the cursor.
      this.saveCursor('cannot save the rules cursor after a catch-up');
    }
    if (caughtUp > 0) this.o.log.info({ readings: caughtUp }, 'evaluated readings the rules had not seen');
  }

  private evaluate(rs: StoredReading[]): boolean {
    try {
      this.o.engine.handleReadings(rs);
      this.evaluatedUpTo = rs[rs.length - 1]!.id;
      if (this.behind !== undefined) this.o.log.info({ upTo: this.evaluatedUpTo }, 'rule evaluation resumed');
      this.behind = undefined;
      return true;
    } catch (e) {
      const first = this.behind === undefined;
      this.behind = (e as Error).message;
      if (first)
        this.o.log.error(
          { err: this.behind, from: (this.evaluatedUpTo ?? 0) + 1 },
          'rule evaluation failed; the readings stay stored and are evaluated again, in order, from here',
        );
      this.scheduleRetry();
      return false;
    }
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
