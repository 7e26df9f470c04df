/**
 * The local store as a stage: it opens the SQLite store (migrating it), holds the readings store, the
 * evidence log and the photos, reports its own health, and does its housekeeping, hourly,
 * each write through the write gate: retention of old readings and rejections, and the removal of photos
 * no record cites once `photos.uncitedRetentionDays` have passed since their last upload (counted in
 * `gateway_photos_removed_total`); at start it removes the temporary files of uploads a stopped gateway
 * left. It opens through its write gate (`writeGate.ts`): on a full disk the
 * store turns read-only, and a start that cannot open it at all runs on an empty read-only stand-in
 * (`standIn` says why). It starts before every other stage and stops after them all, closing the store.
 */
import type { Config } from '../config/schema.ts';
import type { Counter, Registry } from '../metrics.ts';
import type { ComponentHealth, Log, Stage } from '../pipeline.ts';
import type { Db } from './db.ts';
import { EvidenceLog } from './evidenceLog.ts';
import { openStore } from './open.ts';
import { type PhotoCitation, PhotoStore } from './photos.ts';
import { ReadingStore } from './readings.ts';
import type { ReadingWindow } from './readingWindows.ts';
import type { WriteGate } from './writeGate.ts';

export interface StoreStageOptions {
  dataDir: string;
  storage: Config['storage'];
  photos: Config['photos'];
  /** The records that cite photos, each registered by its owner (the inspections, the correction reports). */
  photoCitations: readonly PhotoCitation[];
  /** The windows of the records whose readings are kept longer, each registered by its owner. */
  readingWindows: readonly ReadingWindow[];
  log: Log;
  now: () => number;
  metrics?: Registry;
}

const PRUNE_EVERY_MS = 3_600_000;

export class StoreStage implements Stage {
  readonly name = 'store';
  readonly db: Db;
  readonly readings: ReadingStore;
  /** Photos: their files and rows, their uploads, which records cite them. */
  readonly photos: PhotoStore;
  /** The evidence log every record is appended to, in the transaction that stores it. */
  readonly evidence: EvidenceLog;
  readonly gate: WriteGate;
  /** Why the real store could not be opened, while the stand-in is in use. */
  readonly standIn: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Readings above this id are kept whatever their age (an output does not have them yet). */
  private keepAbove: () => number | undefined = () => undefined;
  private readonly photosRemoved: Counter | undefined;
  private readonly photoBytesRemoved: Counter | undefined;

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
    this.photos = new PhotoStore(this.db, o.dataDir, o.photoCitations);
    this.photosRemoved = o.metrics?.counter(
      'gateway_photos_removed_total',
      'Photos no record cited, removed by the housekeeping after photos.uncitedRetentionDays',
    );
    this.photoBytesRemoved = o.metrics?.counter(
      'gateway_photos_removed_bytes_total',
      'Bytes of the photos removed by the housekeeping (never cited)',
    );
  }

  /** Retention keeps every reading above the id this returns (an output's position, e.g. InfluxDB's writer). */
  keepReadingsAbove(fn: () => number | undefined): void {
    this.keepAbove = fn;
  }

  async start(): Promise<void> {
    this.sweepPhotoTemps();
    this.housekeeping();
    this.timer = setInterval(() => this.housekeeping(), PRUNE_EVERY_MS);
    this.timer.unref();
  }

  private housekeeping(): void {
    this.gate.write('retention', () => this.prune());
    this.gate.write('photos', () => this.prunePhotos());
  }

  private sweepPhotoTemps(): void {
    try {
      const n = this.photos.sweepTemps();
      if (n > 0) this.o.log.info({ files: n }, 'photos: removed the temporary files of unfinished uploads');
    } catch (e) {
      this.o.log.error({ err: (e as Error).message }, 'photos: the temporary files could not be removed');
    }
  }

  /** Removes the photos no record cites whose last upload is older than `photos.uncitedRetentionDays`. */
  prunePhotos(): void {
    const { photos, now, log } = this.o;
    try {
      const res = this.photos.removeUncited(now() - photos.uncitedRetentionDays * 86_400_000);
      if (res.photos === 0) return;
      this.photosRemoved?.inc({}, res.photos);
      this.photoBytesRemoved?.inc({}, res.bytes);
      log.info(res, 'photos: removed those no record cites');
    } catch (e) {
      // A disk fault is the write gate's (the store turns read-only); anything else is logged.
      if (this.gate.failed(e, 'photos')) return;
      log.error({ err: (e as Error).message }, 'photos: the removal of uncited photos failed');
    }
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
   * Retention: readings older than `retentionDays` (0 keeps all), but those behind a storm, an alert or
   * an order only once older than `evidenceRetentionDays` too (`readingWindows.ts`); rejections beyond
   * `rejectionsKept` or older than `rejectionRetentionDays`.
   */
  prune(): void {
    const { storage, now, log } = this.o;
    try {
      const { retentionDays: days, rejectionsKept: kept, rejectionRetentionDays: rejDays } = storage;
      const before = days > 0 ? now() - days * 86_400_000 : 0;
      const evidenceDays = storage.evidenceRetentionDays;
      const res = this.readings.prune(before, kept, now(), this.keepAbove(), now() - rejDays * 86_400_000, {
        windows: this.o.readingWindows,
        before: evidenceDays > 0 ? now() - evidenceDays * 86_400_000 : Number.NEGATIVE_INFINITY,
      });
      if (res.readings || res.rejections) log.info(res, 'retention: pruned old rows');
    } catch (e) {
      log.error({ err: (e as Error).message }, 'retention prune failed');
    }
  }
}
