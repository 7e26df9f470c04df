/**
 * The evidence log as a stage: it audits the store against the log at start and keeps auditing what is
 * appended, signs a checkpoint at least once a minute while entries arrive (and on demand), and
 * publishes every checkpoint off the box through the publishers it is given (MQTT, InfluxDB, witnesses).
 *
 * At start, before anything else writes: every signed checkpoint the store holds must be a tree head of
 * today's log (a truncated or rewritten log cannot match it), the last published checkpoint read back
 * from off the box (when a publisher can read it back) likewise, and every non-reading entry and the
 * newest readings must match their records. The rest of the log as it was at start is then audited in
 * slices that leave the event loop free, and so is the tree itself (stored subtrees against the leaves). Any problem turns
 * health red with the entry and the reason, and is logged; the gateway keeps running and keeps logging.
 * A publisher that failed gets the latest checkpoint again at the next interval, grown or not.
 */
import type { Log, Stage } from '../pipeline.ts';
import type { Db } from '../store/types.ts';
import { EvidenceAudit, type Problem, type TreeAudit } from './audit.ts';
import {
  type Checkpoint,
  checkpointText,
  openNote,
  parseCheckpoint,
  signNote,
  verifyNote,
} from './checkpoint.ts';
import type { SigningKey } from './keys.ts';
import type { EvidenceLog } from './log.ts';

export interface SignedCheckpoint extends Checkpoint {
  /** The signed note, as published. */
  note: string;
  at: number;
}

/** Somewhere a checkpoint goes off the box; a publisher that can also read its last one back says so. */
export interface CheckpointPublisher {
  name: string;
  publish(cp: SignedCheckpoint): Promise<void>;
  readBack?(): Promise<string | undefined>;
}

export interface EvidenceStageOptions {
  db: Db;
  log: EvidenceLog;
  key: SigningKey;
  logger: Log;
  now: () => number;
  /** How often a checkpoint is signed while entries arrive (default 60 s). */
  intervalMs?: number;
  /** Readings audited synchronously at start, newest first (default 10,000). */
  tailAtStart?: number;
  /**
   * Why the log is not available (the store runs on its read-only stand-in): then nothing is audited,
   * signed or published — an empty stand-in's checkpoint would look like a truncated log to a witness.
   */
  heldBecause?: string | undefined;
}

const SLICE_ENTRIES = 2000;
const SLICE_LEAVES = 20_000;

export class EvidenceStage implements Stage {
  readonly name = 'evidence';
  readonly audit: EvidenceAudit;
  /** The signing key (its public half is what verifiers need). */
  readonly key: SigningKey;
  private readonly publishers: CheckpointPublisher[] = [];
  private readonly problems: Problem[] = [];
  private timer: NodeJS.Timeout | undefined;
  private auditing: { entriesAt: number; tree: TreeAudit; upTo: number } | undefined;
  private audited = 0;
  private publishing = Promise.resolve();
  /** Publishers that have not taken the latest checkpoint yet. */
  private readonly behind = new Set<CheckpointPublisher>();
  private readonly stmts;

  constructor(private readonly o: EvidenceStageOptions) {
    this.key = o.key;
    this.audit = new EvidenceAudit(o.db, o.log);
    this.stmts = {
      insert: o.db.prepare(
        'INSERT OR IGNORE INTO log_checkpoints (size, root, at, note) VALUES (?, ?, ?, ?)',
      ),
      latest: o.db.prepare<[], { size: number; root: Buffer; at: number; note: string }>(
        'SELECT * FROM log_checkpoints ORDER BY size DESC LIMIT 1',
      ),
      bySize: o.db.prepare<[number], { size: number; root: Buffer; at: number; note: string }>(
        'SELECT * FROM log_checkpoints WHERE size = ?',
      ),
      all: o.db.prepare<[], { size: number; root: Buffer; note: string }>(
        'SELECT size, root, note FROM log_checkpoints ORDER BY size',
      ),
      records: o.db.prepare<[number], { idx: number }>(
        'SELECT idx FROM log_entries WHERE kind != 0 AND idx >= ? ORDER BY idx',
      ),
    };
  }

  /** Adds somewhere checkpoints are published to (before start). */
  publishTo(p: CheckpointPublisher): void {
    this.publishers.push(p);
  }

  async start(): Promise<void> {
    if (this.o.heldBecause !== undefined) return;
    const size = this.o.log.size();
    this.checkCheckpoints();
    await this.checkPublished();
    // Every entry that is not a reading (few, and the ones a report leans on most), then the newest readings.
    for (const { idx } of this.stmts.records.iterate(0)) this.report(this.audit.checkEntries(idx, idx + 1));
    const tail = Math.max(0, size - (this.o.tailAtStart ?? 10_000));
    this.report(this.audit.checkEntries(tail, size));
    this.report(this.audit.unlogged());
    // The rest in slices: every entry against its record, and the tree against its stored subtrees.
    this.auditing = { entriesAt: 0, tree: this.audit.treeAudit(), upTo: size };
    this.scheduleSlice();
    const every = this.o.intervalMs ?? 60_000;
    this.timer = setInterval(() => {
      if (!this.checkpointIfGrown() && this.behind.size > 0) {
        const latest = this.stmts.latest.get();
        if (latest) this.publish(this.fromRow(latest), [...this.behind]);
      }
    }, every);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.auditing = undefined;
    await this.publishing;
  }

  health() {
    if (this.o.heldBecause !== undefined)
      return {
        name: this.name,
        ok: false,
        detail: `the evidence log is not available: ${this.o.heldBecause}`,
      };
    const latest = this.stmts.latest.get();
    const base = {
      name: this.name,
      size: this.o.log.size(),
      checkpoint: latest ? { size: latest.size, at: new Date(latest.at).toISOString() } : null,
      audited: this.audited,
    };
    if (this.problems.length === 0) return { ...base, ok: true, detail: 'the store matches its log' };
    const p = this.problems[0]!;
    return {
      ...base,
      ok: false,
      detail: `the store does not match its evidence log: entry ${p.idx} (${p.kind}): ${p.reason}`,
      problems: this.problems.slice(0, 10),
    };
  }

  /** What the audit found so far. */
  found(): readonly Problem[] {
    return this.problems;
  }

  /** The latest signed checkpoint, signing a new one first when the log grew since (or at `size`). */
  checkpoint(size?: number): SignedCheckpoint {
    if (this.o.heldBecause !== undefined)
      throw new Error(`the evidence log is not available: ${this.o.heldBecause}`);
    if (size !== undefined && size !== this.o.log.size()) {
      const stored = this.stmts.bySize.get(size);
      if (stored) return this.fromRow(stored);
      return this.sign(size, false);
    }
    const latest = this.stmts.latest.get();
    if (latest && latest.size === this.o.log.size()) return this.fromRow(latest);
    return this.sign(this.o.log.size(), true);
  }

  /** Signs a checkpoint if entries arrived since the last one (the timer's job); publishes it. */
  checkpointIfGrown(): SignedCheckpoint | undefined {
    const latest = this.stmts.latest.get();
    if (latest && latest.size >= this.o.log.size()) return undefined;
    return this.sign(this.o.log.size(), true);
  }

  private sign(size: number, store: boolean): SignedCheckpoint {
    const root = this.o.log.rootAt(size);
    const cp: Checkpoint = { origin: this.o.key.name, size, root, extensions: [] };
    const note = signNote(checkpointText(cp), this.o.key.name, this.o.key.privateKey);
    const signed: SignedCheckpoint = { ...cp, note, at: this.o.now() };
    if (store) {
      this.stmts.insert.run(size, root, signed.at, note);
      this.publish(signed);
    }
    return signed;
  }

  private publish(cp: SignedCheckpoint, to: CheckpointPublisher[] = this.publishers): void {
    for (const p of to)
      this.publishing = this.publishing.then(() =>
        p.publish(cp).then(
          () => {
            this.behind.delete(p);
          },
          (e: Error) => {
            this.behind.add(p);
            this.o.logger.warn(
              { to: p.name, size: cp.size, err: e.message },
              'checkpoint not published; tried again at the next interval',
            );
          },
        ),
      );
  }

  private fromRow(r: { size: number; root: Buffer; at: number; note: string }): SignedCheckpoint {
    return { origin: this.o.key.name, size: r.size, root: r.root, extensions: [], note: r.note, at: r.at };
  }

  /** Every checkpoint the store holds must be a tree head of the log as it is now. */
  private checkCheckpoints(): void {
    for (const c of this.stmts.all.iterate()) {
      const reason = this.disagreement(c.note);
      if (reason) this.report([{ idx: c.size, kind: 'checkpoint', reason }]);
    }
  }

  /** Why a signed checkpoint note does not describe today's log, if it does not. */
  private disagreement(note: string): string | undefined {
    let cp: Checkpoint;
    try {
      cp = parseCheckpoint(verifyNote(note, this.o.key.name, this.o.key.publicKey));
    } catch (e) {
      return `a checkpoint does not verify with the gateway's key: ${(e as Error).message}`;
    }
    if (cp.size > this.o.log.size())
      return `the log has ${this.o.log.size()} entries, fewer than the ${cp.size} a signed checkpoint counts: it was truncated`;
    try {
      if (!this.o.log.rootAt(cp.size).equals(cp.root))
        return `the log's first ${cp.size} entries do not hash to the root a signed checkpoint gives: they were rewritten`;
    } catch (e) {
      return `the log's tree head at ${cp.size} cannot be computed: ${(e as Error).message}`;
    }
    return undefined;
  }

  /** The last checkpoint published off the box, read back where a publisher can. */
  private async checkPublished(): Promise<void> {
    for (const p of this.publishers) {
      if (!p.readBack) continue;
      let note: string | undefined;
      try {
        note = await p.readBack();
      } catch (e) {
        this.o.logger.warn(
          { from: p.name, err: (e as Error).message },
          'could not read the published checkpoint back',
        );
        continue;
      }
      if (!note) continue;
      if (openNote(note).signatures.every((s) => s.name !== this.o.key.name)) continue;
      const reason = this.disagreement(note);
      if (reason) this.report([{ idx: -1, kind: `published checkpoint (${p.name})`, reason }]);
    }
  }

  private report(found: Problem[]): void {
    for (const p of found) {
      if (this.problems.length === 0)
        this.o.logger.error(
          { idx: p.idx, kind: p.kind, reason: p.reason },
          'the store does not match its evidence log',
        );
      if (this.problems.length < 100) this.problems.push(p);
    }
  }

  private scheduleSlice(): void {
    const a = this.auditing;
    if (!a) return;
    setImmediate(() => {
      if (this.auditing !== a) return;
      const to = Math.min(a.upTo, a.entriesAt + SLICE_ENTRIES);
      if (a.entriesAt < to) {
        this.report(this.audit.checkEntries(a.entriesAt, to));
        a.entriesAt = to;
        this.audited = to;
        this.scheduleSlice();
        return;
      }
      if (a.tree.step(SLICE_LEAVES, a.upTo)) {
        this.scheduleSlice();
        return;
      }
      if (a.tree.problem) this.report([a.tree.problem]);
      else if (!a.tree.root().equals(this.o.log.rootAt(a.upTo)))
        this.report([
          { idx: a.upTo, kind: 'tree', reason: 'the leaves do not hash to the tree head the store gives' },
        ]);
      this.auditing = undefined;
      this.o.logger.info({ entries: a.upTo, problems: this.problems.length }, 'evidence audit done');
    });
  }
}
