/**
 * The local store as a stage: it opens the SQLite store (migrating it), holds the readings store and the
 * InfluxDB alert-change outbox, reports its own health, and does its housekeeping: retention of old
 * readings and rejections, hourly. It starts before every other stage and stops after them all, closing
 * the store.
 */
import type { Config } from '../config/schema.ts';
import { EvidenceLog } from '../evidence/log.ts';
import type { ComponentHealth, Log, Stage } from '../pipeline.ts';
import { type Db, openDatabase } from './db.ts';
import { InfluxOutbox } from './influxOutbox.ts';
import { ReadingStore } from './readings.ts';

export interface StoreStageOptions {
  dataDir: string;
  storage: Config['storage'];
  log: Log;
  now: () => number;
}

const PRUNE_EVERY_MS = 3_600_000;

export class StoreStage implements Stage {
  readonly name = 'store';
  readonly db: Db;
  readonly readings: ReadingStore;
  readonly outbox: InfluxOutbox;
  /** The evidence log every record is appended to, in the transaction that stores it. */
  readonly evidence: EvidenceLog;
  private timer: NodeJS.Timeout | undefined;
  /** Readings above this id are kept whatever their age (InfluxDB does not have them yet). */
  private keepAbove: () => number | undefined = () => undefined;

  constructor(private readonly o: StoreStageOptions) {
    this.db = openDatabase(o.dataDir, { synchronous: o.storage.synchronous });
    this.evidence = new EvidenceLog(this.db);
    this.readings = new ReadingStore(this.db, this.evidence);
    this.outbox = new InfluxOutbox(this.db);
  }

  /** Retention keeps every reading above the id this returns (the InfluxDB writer's position). */
  keepReadingsAbove(fn: () => number | undefined): void {
    this.keepAbove = fn;
  }

  async start(): Promise<void> {
    this.prune();
    this.timer = setInterval(() => this.prune(), PRUNE_EVERY_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.db.open) this.db.close();
  }

  health(): ComponentHealth {
    try {
      this.db.prepare('SELECT 1').get();
      return {
        name: this.name,
        ok: true,
        detail: `SQLite (WAL) in ${this.o.dataDir}`,
        readings: this.readings.count(),
      };
    } catch (e) {
      return { name: this.name, ok: false, detail: (e as Error).message };
    }
  }

  /** Retention: readings older than `retentionDays` (0 keeps all) and rejections beyond `rejectionsKept`. */
  prune(): void {
    const { storage, now, log } = this.o;
    try {
      const before = storage.retentionDays > 0 ? now() - storage.retentionDays * 86_400_000 : 0;
      const res = this.readings.prune(before, storage.rejectionsKept, now(), this.keepAbove());
      if (res.readings || res.rejections) log.info(res, 'retention: pruned old rows');
    } catch (e) {
      log.error({ err: (e as Error).message }, 'retention prune failed');
    }
  }
}
