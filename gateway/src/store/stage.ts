/**
 * The local store as a stage: it opens the SQLite store (migrating it), holds the readings store and the
 * InfluxDB alert-change outbox, reports its own health, and does its housekeeping: retention of old
 * readings and rejections, hourly. It opens through its write gate (`writeGate.ts`): on a full disk the
 * store turns read-only, and a start that cannot open it at all runs on an empty read-only stand-in
 * (`standIn` says why). It starts before every other stage and stops after them all, closing the store.
 */
import type { Config } from '../config/schema.ts';
import type { Registry } from '../metrics.ts';
import type { ComponentHealth, Log, Stage } from '../pipeline.ts';
import type { Db } from './db.ts';
import { EvidenceLog } from './evidenceLog.ts';
import { InfluxOutbox } from './influxOutbox.ts';
import { openStore } from './open.ts';
import { ReadingStore } from './readings.ts';
import type { WriteGate } from './writeGate.ts';

export interface StoreStageOptions {
  dataDir: string;
  storage: Config['storage'];
  log: Log;
  now: () => number;
  metrics?: Registry;
}

const PRUNE_EVERY_MS = 3_600_000;

export class StoreStage implements Stage {
  readonly name = 'store';
  readonly db: Db;
  readonly readings: ReadingStore;
  readonly outbox: InfluxOutbox;
  /** The evidence log every record is appended to, in the transaction that stores it. */
  readonly evidence: EvidenceLog;
  readonly gate: WriteGate;
  /** Why the real store could not be opened, while the stand-in is in use. */
  readonly standIn: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Readings above this id are kept whatever their age (InfluxDB does not have them yet). */
  private keepAbove: () => number | undefined = () => undefined;

  constructor(private readonly o: StoreStageOptions) {
    const { db, gate, standIn } = openStore(o.dataDir, {
      ...o.storage,
      log: o.log,
      ...(o.metrics ? { metrics: o.metrics } : {}),
    });
    this.db = db;
    this.gate = gate;
    this.standIn = standIn;
    this.evidence = new EvidenceLog(this.db);
    this.readings = new ReadingStore(this.db, this.evidence);
    this.outbox = new InfluxOutbox(this.db);
  }

  /** Retention keeps every reading above the id this returns (the InfluxDB writer's position). */
  keepReadingsAbove(fn: () => number | undefined): void {
    this.keepAbove = fn;
  }

  async start(): Promise<void> {
    this.gate.write('retention', () => this.prune());
    this.timer = setInterval(() => this.gate.write('retention', () => this.prune()), PRUNE_EVERY_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.gate.stop();
    if (this.db.open) this.db.close();
  }

  health(): ComponentHealth {
    try {
      this.db.prepare('SELECT 1').get();
      return { ...this.gate.health(), readings: this.readings.count() };
    } catch (e) {
      return { name: this.name, ok: false, detail: (e as Error).message };
    }
  }

  /**
   * Retention: readings older than `retentionDays` (0 keeps all), rejections beyond `rejectionsKept` or
   * older than `rejectionRetentionDays`.
   */
  prune(): void {
    const { storage, now, log } = this.o;
    try {
      const { retentionDays: days, rejectionsKept: kept, rejectionRetentionDays: rejDays } = storage;
      const before = days > 0 ? now() - days * 86_400_000 : 0;
      const res = this.readings.prune(before, kept, now(), this.keepAbove(), now() - rejDays * 86_400_000);
      if (res.readings || res.rejections) log.info(res, 'retention: pruned old rows');
    } catch (e) {
      log.error({ err: (e as Error).message }, 'retention prune failed');
    }
  }
}
