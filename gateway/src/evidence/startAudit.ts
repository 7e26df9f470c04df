/**
 * The audit of the store at start, run in the background in slices of a few milliseconds that give the
 * event loop back, so the gateway listens at once whatever the store's size.
 *
 * It checks the log as it was at start (`size` entries): appending only ever adds entries after it and
 * never changes a tree head of an earlier size, so the gateway can keep taking readings meanwhile. In
 * order: every signed checkpoint the store held at start must be a tree head of that log (a truncated or
 * rewritten log cannot be); every entry that is not a reading, then the newest readings, then every entry,
 * must match its record; no record may lack an entry; and the stored subtrees must match the leaves.
 */

import type { EvidenceLog } from '../store/evidenceLog.ts';
import type { Db } from '../store/types.ts';
import type { EvidenceAudit, Problem } from './audit.ts';

export interface StartAuditInput {
  db: Db;
  log: EvidenceLog;
  audit: EvidenceAudit;
  /** The log's size at start: what is audited. */
  size: number;
  /** Readings checked first, newest first. */
  tail: number;
  /** The largest checkpoint the store held at start (those signed since are not audited). */
  checkpointsUpTo: number;
  /** Why a signed checkpoint note does not describe the log at start, if it does not. */
  disagreement(note: string): string | undefined;
  report(found: Problem[]): void;
  /** Called once every checkpoint held at start has been checked. */
  checkpointsChecked(): void;
}

const CHECKPOINTS_PER_STEP = 50;
const ENTRIES_PER_STEP = 500;
const LEAVES_PER_STEP = 5000;
/**
 * Work done before the event loop is given back, and the pause after it: the audit takes at most about
 * half of the process's time, so the start, the API and ingest keep their pace while it runs.
 */
const SLICE_MS = 10;
const PAUSE_MS = 10;

/** The audit's steps; `progress.audited` counts the entries checked against their records so far. */
function* steps(a: StartAuditInput, progress: { audited: number }): Generator<void, void> {
  const stmts = {
    checkpoints: a.db.prepare<[number, number, number], { size: number; note: string }>(
      'SELECT size, note FROM log_checkpoints WHERE size > ? AND size <= ? ORDER BY size LIMIT ?',
    ),
    records: a.db.prepare<[number, number, number], { idx: number }>(
      'SELECT idx FROM log_entries WHERE kind != 0 AND idx >= ? AND idx < ? ORDER BY idx LIMIT ?',
    ),
  };
  for (let after = -1; ; ) {
    const rows = stmts.checkpoints.all(after, a.checkpointsUpTo, CHECKPOINTS_PER_STEP);
    if (rows.length === 0) break;
    for (const c of rows) {
      const reason = a.disagreement(c.note);
      if (reason) a.report([{ idx: c.size, kind: 'checkpoint', reason }]);
    }
    after = rows[rows.length - 1]!.size;
    yield;
  }
  a.checkpointsChecked();
  // Every entry that is not a reading (few, and the ones a report leans on most).
  for (let from = 0; ; ) {
    const rows = stmts.records.all(from, a.size, ENTRIES_PER_STEP);
    if (rows.length === 0) break;
    for (const { idx } of rows) a.report(a.audit.checkEntries(idx, idx + 1));
    from = rows[rows.length - 1]!.idx + 1;
    yield;
  }
  // The newest readings, then every entry.
  for (let from = Math.max(0, a.size - a.tail); from < a.size; from += ENTRIES_PER_STEP) {
    a.report(a.audit.checkEntries(from, Math.min(a.size, from + ENTRIES_PER_STEP)));
    yield;
  }
  a.report(a.audit.unlogged());
  yield;
  for (let from = 0; from < a.size; from += ENTRIES_PER_STEP) {
    const to = Math.min(a.size, from + ENTRIES_PER_STEP);
    a.report(a.audit.checkEntries(from, to));
    progress.audited = to;
    yield;
  }
  progress.audited = a.size;
  // The tree: every stored subtree against its leaves, and the root against the tree head the store gives.
  const tree = a.audit.treeAudit();
  while (tree.step(LEAVES_PER_STEP, a.size)) yield;
  if (tree.problem) a.report([tree.problem]);
  else if (!tree.root().equals(a.log.rootAt(a.size)))
    a.report([
      { idx: a.size, kind: 'tree', reason: 'the leaves do not hash to the tree head the store gives' },
    ]);
}

/** Runs the audit in slices until it is done or cancelled. */
export class StartAudit {
  readonly progress = { audited: 0 };
  private readonly work: Generator<void, void>;
  private cancelled = false;
  readonly done: Promise<void>;
  private finish: (e?: Error) => void = () => {};

  constructor(input: StartAuditInput) {
    this.work = steps(input, this.progress);
    this.done = new Promise<void>((resolve, reject) => {
      this.finish = (e) => (e ? reject(e) : resolve());
    });
    setTimeout(this.slice, PAUSE_MS);
  }

  cancel(): void {
    this.cancelled = true;
    this.finish();
  }

  private readonly slice = (): void => {
    if (this.cancelled) return;
    const until = performance.now() + SLICE_MS;
    try {
      while (performance.now() < until) {
        if (this.work.next().done) {
          this.cancelled = true;
          this.finish();
          return;
        }
      }
    } catch (e) {
      this.cancelled = true;
      this.finish(e as Error);
      return;
    }
    setTimeout(this.slice, PAUSE_MS);
  };
}
