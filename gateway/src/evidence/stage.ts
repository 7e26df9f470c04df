/**
 * The evidence log as a stage: it audits the store against the log at start and keeps auditing what is
 * appended, signs a checkpoint at least once a minute while entries arrive (and on demand), and
 * publishes every checkpoint off the box through the publishers it is given (MQTT, InfluxDB, witnesses).
 *
 * Start returns at once: the audit of the log as it was at start runs in the background in slices that
 * leave the event loop free (`startAudit.ts`), and health says "auditing" until it is done; readings are
 * taken meanwhile. The copies of the last checkpoint kept off the box are read back and compared with the
 * log (`offBox.ts`); until that is done, and for good once a checkpoint contradicts the log, no checkpoint
 * is published, so a truncated store cannot overwrite the copies that show it. Any problem turns health red
 * with the entry and the reason, and is logged; the gateway keeps running and keeps logging. Where no copy
 * off the box could be read, health says that a truncation of the newest entries cannot be ruled out.
 * A publisher that failed gets the latest checkpoint again at the next interval, grown or not.
 */

import {
  type Checkpoint,
  checkpointText,
  parseCheckpoint,
  signNote,
  verifyNote,
} from '../ledger/checkpoint.ts';
import type { Log, Stage } from '../pipeline.ts';
import type { EvidenceLog } from '../store/evidenceLog.ts';
import type { Db } from '../store/types.ts';
import type { GuardedWrite } from '../store/writeGate.ts';
import { EvidenceAudit, type Problem } from './audit.ts';
import type { SigningKey } from './keys.ts';
import { type Judgement, type OffBoxCopy, readOffBox, tailSentence } from './offBox.ts';
import type { CheckpointPublisher, SignedCheckpoint } from './publisher.ts';
import { StartAudit } from './startAudit.ts';

export type { CheckpointPublisher, SignedCheckpoint } from './publisher.ts';

export interface EvidenceStageOptions {
  db: Db;
  log: EvidenceLog;
  key: SigningKey;
  logger: Log;
  now: () => number;
  /** How often a checkpoint is signed while entries arrive (default 60 s). */
  intervalMs?: number;
  /** Readings audited first at start, newest first (default 10,000). */
  tailAtStart?: number;
  /**
   * Why the log is not available (the store runs on its read-only stand-in): then nothing is audited,
   * signed or published — an empty stand-in's checkpoint would look like a truncated log to a witness.
   */
  heldBecause?: string | undefined;
  /**
   * Runs the checkpoint timer's writes (the store's write gate): put off while the store is read-only,
   * and a full or failing disk turns it read-only rather than ending the process.
   */
  write?: GuardedWrite;
}

type CheckpointRow = { size: number; root: Buffer; at: number; note: string };

export class EvidenceStage implements Stage {
  readonly name = 'evidence';
  readonly audit: EvidenceAudit;
  /** The signing key (its public half is what verifiers need). */
  readonly key: SigningKey;
  private readonly publishers: CheckpointPublisher[] = [];
  private readonly problems: Problem[] = [];
  private timer: NodeJS.Timeout | undefined;
  private startAudit: StartAudit | undefined;
  private auditDone = false;
  /** The log's size when the gateway started: what the start-up audit checks. */
  private sizeAtStart = 0;
  /** What the copies off the box said (undefined while they are being read). */
  private offBox: OffBoxCopy[] | undefined;
  private checkpointsChecked = false;
  /** Why nothing is published: a checkpoint contradicts the log, and the copies off the box must stay as they are. */
  private contradicted: string | undefined;
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
      latest: o.db.prepare<[], CheckpointRow>('SELECT * FROM log_checkpoints ORDER BY size DESC LIMIT 1'),
      bySize: o.db.prepare<[number], CheckpointRow>('SELECT * FROM log_checkpoints WHERE size = ?'),
    };
  }

  /** Adds somewhere checkpoints are published to (before start). */
  publishTo(p: CheckpointPublisher): void {
    this.publishers.push(p);
  }

  async start(): Promise<void> {
    if (this.o.heldBecause !== undefined) return;
    this.sizeAtStart = this.o.log.size();
    this.startAudit = new StartAudit({
      db: this.o.db,
      log: this.o.log,
      audit: this.audit,
      size: this.sizeAtStart,
      tail: this.o.tailAtStart ?? 10_000,
      checkpointsUpTo: this.stmts.latest.get()?.size ?? -1,
      disagreement: (note) => this.judge(note).reason,
      report: (found) => this.report(found),
      checkpointsChecked: () => {
        this.checkpointsChecked = true;
        this.release();
      },
    });
    const started = this.startAudit;
    started.done.then(
      () => {
        if (this.startAudit !== started) return;
        this.auditDone = true;
        this.o.logger.info(
          { entries: this.sizeAtStart, problems: this.problems.length },
          'evidence audit done',
        );
      },
      (e: Error) => {
        this.report([{ idx: -1, kind: 'audit', reason: `the audit could not finish: ${e.message}` }]);
      },
    );
    // The copies off the box are read in the background too: a slow or absent server does not hold the start.
    void readOffBox(this.publishers, this.key.name, (note) => this.judge(note), this.o.logger).then(
      (copies) => {
        for (const c of copies)
          if (c.state === 'contradicts')
            this.report([{ idx: -1, kind: `published checkpoint (${c.name})`, reason: c.reason ?? '' }]);
        this.offBox = copies;
        this.release();
      },
    );
    const every = this.o.intervalMs ?? 60_000;
    const tick = () => {
      if (!this.checkpointIfGrown() && this.behind.size > 0) this.publishLatest([...this.behind]);
    };
    const write = this.o.write;
    this.timer = setInterval(() => (write ? write('evidence-checkpoint', tick) : tick()), every);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.startAudit?.cancel();
    this.startAudit = undefined;
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
    const { tail, sentence } = tailSentence(this.offBox, this.sizeAtStart);
    const auditing = !this.auditDone;
    const base = {
      name: this.name,
      size: this.o.log.size(),
      checkpoint: latest ? { size: latest.size, at: new Date(latest.at).toISOString() } : null,
      audit: auditing ? 'auditing' : 'done',
      audited: this.startAudit?.progress.audited ?? (this.auditDone ? this.sizeAtStart : 0),
      tail,
      offBox: this.offBox ?? [],
      ...(this.contradicted ? { publishing: `held: ${this.contradicted}` } : {}),
    };
    if (this.problems.length === 0) {
      const n = (x: number) => x.toLocaleString('en-US');
      const detail = auditing
        ? `auditing the store against its evidence log: ${n(base.audited)} of ${n(this.sizeAtStart)} entries checked so far, nothing wrong found yet; readings are taken meanwhile`
        : tail === 'ruled-out'
          ? `the store matches its evidence log, and ${sentence}`
          : `the store matches its evidence log as far as the gateway can tell, but ${sentence}`;
      return { ...base, ok: true, detail };
    }
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

  /** Resolves once the start-up audit has checked the whole log as it was at start. */
  audited(): Promise<void> {
    return this.startAudit?.done ?? Promise.resolve();
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

  /**
   * Publishes once the copies off the box have been compared with the log and the stored checkpoints
   * checked; until then (and for good once one contradicts the log) the publishers are only marked behind.
   */
  private publish(cp: SignedCheckpoint, to: CheckpointPublisher[] = this.publishers): void {
    if (!this.mayPublish()) {
      for (const p of to) this.behind.add(p);
      return;
    }
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

  private mayPublish(): boolean {
    return this.offBox !== undefined && this.checkpointsChecked && this.contradicted === undefined;
  }

  /** The comparison is done: the publishers held back get the latest checkpoint. */
  private release(): void {
    if (this.mayPublish() && this.behind.size > 0) this.publishLatest([...this.behind]);
  }

  private publishLatest(to: CheckpointPublisher[]): void {
    const latest = this.stmts.latest.get();
    if (latest) this.publish(this.fromRow(latest), to);
  }

  private fromRow(r: CheckpointRow): SignedCheckpoint {
    return { origin: this.o.key.name, size: r.size, root: r.root, extensions: [], note: r.note, at: r.at };
  }

  /**
   * A signed checkpoint note against the log as it was at start: its size, and why it does not describe
   * that log, if it does not. A checkpoint that contradicts the log holds publishing for good.
   */
  private judge(note: string): Judgement {
    let cp: Checkpoint;
    try {
      cp = parseCheckpoint(verifyNote(note, this.o.key.name, this.o.key.publicKey));
    } catch (e) {
      return {
        size: -1,
        reason: `a checkpoint does not verify with the gateway's key: ${(e as Error).message}`,
      };
    }
    const reason = this.disagreement(cp);
    if (reason) this.contradicted ??= reason;
    return reason ? { size: cp.size, reason } : { size: cp.size };
  }

  private disagreement(cp: Checkpoint): string | undefined {
    const size = this.sizeAtStart;
    if (cp.size > size)
      return `the log had ${size} entries at start, fewer than the ${cp.size} a signed checkpoint counts: it was truncated`;
    try {
      if (!this.o.log.rootAt(cp.size).equals(cp.root))
        return `the log's first ${cp.size} entries do not hash to the root a signed checkpoint gives: they were rewritten`;
    } catch (e) {
      return `the log's tree head at ${cp.size} cannot be computed: ${(e as Error).message}`;
    }
    return undefined;
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
}
