/**
 * The ingest stage: decodes and validates raw messages, drops duplicates, bounds floods, and commits
 * readings and rejections to the local store in group commits. A message's promise resolves only after
 * its outcome is committed, so transports acknowledge durable data only.
 *
 * The jobs live beside it: groupCommit.ts (the transaction and the acknowledgements after it),
 * duplicates.ts and rateLimit.ts (what is not stored twice, and how much a device may send),
 * deviceStates.ts (each device's newest values and status).
 */
import type { Reading, RejectReason } from '../../../shared/src/telemetry.ts';
import { parseDeviceTopic } from '../../../shared/src/topics.ts';
import type { Config } from '../config/schema.ts';
import {
  type DecodeOptions,
  type DecodeResult,
  decodeMqttTelemetry,
  decodeSerialLine,
  unregistered,
} from '../decode/decode.ts';
import type { DeviceRegistry } from '../decode/registry.ts';
import { type DeviceStatus, decodeDeviceStatus, statusRejection } from '../decode/status.ts';
import type { Registry } from '../metrics.ts';
import type { ComponentHealth, IngestResult, IngestSink, Log, RawMessage, Stage } from '../pipeline.ts';
import type { DeviceStateRow, ReadingStore, StoredReading } from '../store/readings.ts';
import type { Db } from '../store/types.ts';
import { DeviceStates } from './deviceStates.ts';
import { Duplicates } from './duplicates.ts';
import { GroupCommit, type Settle } from './groupCommit.ts';
import { IngestMetrics } from './metrics.ts';
import { RateLimiter } from './rateLimit.ts';

export interface IngestStageOptions {
  db: Db;
  store: ReadingStore;
  registry: DeviceRegistry;
  ingest: Config['ingest'];
  metrics: Registry;
  log: Log;
  now?: () => number;
  /** Largest group commit. */
  maxBatch?: number;
  /** Runs inside every group commit's transaction (e.g. to persist a cursor without a commit of its own). */
  inTransaction?: () => void;
}

type StatusListener = (siteId: string, deviceId: string, status: DeviceStatus, at: number) => void;

/** The promise form of a call that settles a callback. */
const promised = (run: (done: Settle) => void): Promise<IngestResult> =>
  new Promise((resolve, reject) => run((err, result) => (err ? reject(err) : resolve(result!))));

/** How much of a rejected payload is kept with the rejection, in characters. */
const EXCERPT = 200;

export class IngestStage implements IngestSink, Stage {
  readonly name = 'ingest';
  private statusListeners: StatusListener[] = [];
  private readonly decodeOpts: DecodeOptions;
  private readonly m: IngestMetrics;
  private readonly commits: GroupCommit;
  private readonly duplicates: Duplicates;
  private readonly limiter: RateLimiter;
  private readonly states: DeviceStates;

  constructor(private readonly o: IngestStageOptions) {
    this.decodeOpts = {
      maxPayloadBytes: o.ingest.maxPayloadBytes,
      maxFutureMs: o.ingest.maxFutureSeconds * 1000,
    };
    this.states = new DeviceStates(o.store, o.log);
    this.duplicates = new Duplicates(o.store, o.ingest.seqDedupWindowSec);
    this.limiter = new RateLimiter(o.ingest);
    this.m = new IngestMetrics(o.metrics);
    this.commits = new GroupCommit({
      db: o.db,
      store: o.store,
      metrics: this.m,
      log: o.log,
      ...(o.maxBatch !== undefined ? { maxBatch: o.maxBatch } : {}),
      ...(o.inTransaction ? { inTransaction: o.inTransaction } : {}),
      applied: (stored) => {
        for (const r of stored) this.states.applyReading(r);
      },
      rolledBack: (r) => this.duplicates.forget(r),
    });
  }

  /** Listeners run after each commit with the readings it stored (not duplicates), in commit order. */
  onStored(fn: (readings: StoredReading[]) => void): void {
    this.commits.onStored(fn);
  }

  onDeviceStatus(fn: StatusListener): void {
    this.statusListeners.push(fn);
  }

  async start(): Promise<void> {
    this.states.start(1000);
  }

  /** Commits what is pending and saves the device states. */
  async stop(): Promise<void> {
    this.commits.flush();
    this.states.stop();
  }

  health(): ComponentHealth {
    const failing = this.commits.failing;
    return {
      name: this.name,
      ok: failing === undefined,
      detail: failing === undefined ? 'storing' : `local store commits failing: ${failing}`,
      devices: this.states.size,
      waiting: this.commits.waiting,
    };
  }

  ingest(msg: RawMessage): Promise<IngestResult> {
    return promised((done) => this.ingestWith(msg, done));
  }

  /** ingest() with a callback: no promise per message for a transport that acknowledges each one. */
  ingestWith(msg: RawMessage, done: Settle): void {
    const topic = msg.transport === 'mqtt' ? parseDeviceTopic(msg.topic) : undefined;
    if (topic?.kind === 'status') {
      this.status(msg, topic.siteId, topic.deviceId, done);
      return;
    }
    if (topic?.kind === 'other') {
      this.m.count(msg.transport, 'ignored');
      done(null, { status: 'ignored' });
      return;
    }
    const decoded: DecodeResult =
      msg.transport === 'mqtt'
        ? decodeMqttTelemetry(msg.topic, msg.payload, msg.receivedAt, this.o.registry, this.decodeOpts)
        : decodeSerialLine(
            typeof msg.payload === 'string' ? msg.payload : msg.payload.toString('utf8'),
            msg.receivedAt,
            this.o.registry,
            this.decodeOpts,
          );
    if (!decoded.ok) {
      this.refuseWith(msg, decoded.reason, decoded.detail, decoded.siteId, decoded.deviceId, done);
      return;
    }
    const r = decoded.reading;
    if (!this.limiter.allow(r.siteId, r.deviceId, msg.receivedAt)) {
      this.refuseWith(
        msg,
        'rate_limited',
        `device ${r.siteId}/${r.deviceId} exceeds its message rate`,
        r.siteId,
        r.deviceId,
        done,
      );
      return;
    }
    this.submit(r, done);
  }

  /** Already-decoded readings (logger import): duplicate-checked and stored like live data. */
  async ingestReadings(readings: Reading[]): Promise<{ stored: number; duplicates: number }> {
    const results = await Promise.all(readings.map((r) => promised((done) => this.submit(r, done))));
    let stored = 0;
    for (const res of results) if (res.status === 'stored') stored++;
    return { stored, duplicates: results.length - stored };
  }

  /** The newest state of every device seen (latest value per field, with its source time). */
  deviceStates(): DeviceStateRow[] {
    return this.states.all();
  }

  deviceState(siteId: string, deviceId: string): DeviceStateRow | undefined {
    return this.states.get(siteId, deviceId);
  }

  /**
   * Counts and records a rejected message; also used by transports for what they refuse themselves
   * (e.g. a publish outside the device's own topics).
   */
  refuse(
    msg: RawMessage,
    reason: RejectReason,
    detail: string,
    siteId?: string,
    deviceId?: string,
  ): Promise<IngestResult> {
    return promised((done) => this.refuseWith(msg, reason, detail, siteId, deviceId, done));
  }

  private submit(r: Reading, done: Settle): void {
    this.duplicates.stampArrival(r);
    if (this.duplicates.seenSeq(r)) {
      this.m.count(r.transport, 'duplicate');
      done(null, { status: 'duplicate', reading: r });
      return;
    }
    this.commits.add({ kind: 'reading', reading: r, settle: done });
  }

  private refuseWith(
    msg: RawMessage,
    reason: RejectReason,
    detail: string,
    siteId: string | undefined,
    deviceId: string | undefined,
    done: Settle,
  ): void {
    this.m.count(msg.transport, 'rejected');
    this.m.rejections.inc({ reason });
    if (reason === 'rate_limited' && !this.limiter.record(siteId, deviceId, msg.receivedAt)) {
      done(null, { status: 'rejected', reason, detail });
      return;
    }
    const text =
      typeof msg.payload === 'string' ? msg.payload : msg.payload.subarray(0, EXCERPT * 4).toString('utf8');
    this.commits.add({
      kind: 'rejection',
      rec: {
        at: msg.receivedAt,
        transport: msg.transport,
        topic: msg.topic,
        siteId,
        deviceId,
        reason,
        detail,
        excerpt: text.slice(0, EXCERPT),
      },
      settle: done,
    });
  }

  private status(msg: RawMessage, siteId: string, deviceId: string, done: Settle): void {
    if (!this.o.registry.lookup(siteId, deviceId)) {
      const r = unregistered(siteId, deviceId);
      this.refuseWith(msg, r.reason, r.detail, siteId, deviceId, done);
      return;
    }
    const decoded = decodeDeviceStatus(msg.payload, msg.receivedAt);
    if (!decoded.ok) {
      const r = statusRejection(decoded);
      this.refuseWith(msg, r.reason, r.detail, siteId, deviceId, done);
      return;
    }
    // The state keeps the arrival time, not a time the payload names.
    this.states.setStatus(siteId, deviceId, decoded.status, msg.receivedAt);
    for (const fn of this.statusListeners) fn(siteId, deviceId, decoded.status, msg.receivedAt);
    this.m.count(msg.transport, 'status');
    done(null, { status: 'ignored' });
  }
}
