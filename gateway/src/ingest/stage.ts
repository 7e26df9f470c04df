/**
 * The ingest stage: decodes and validates raw messages, drops duplicates, paces floods, and commits
 * readings and rejections to the local store in group commits. A message's promise resolves only after
 * its outcome is committed, so transports acknowledge durable data only.
 *
 * What it does with a message, in order:
 * - permanently invalid (malformed, unknown field, out of range, an impossible counter jump, …): a
 *   rejection, counted in full, stored sampled, and then acknowledged: sending it again would never help,
 *   and it must not stop the device's later messages;
 * - usable later (a timestamp ahead of the gateway's clock, a device not registered yet): kept in the
 *   quarantine with its reason, counted, and acknowledged once that is committed (quarantine.ts), so the
 *   device's later messages flow on; released later as readings (`release`);
 * - refused for a passing reason, when the sender waits for an acknowledgement (a QoS 1 publish): a store
 *   that cannot commit, a client's quarantine full. It is counted and refused unacknowledged
 *   (RefusedError), so the device keeps it and sends it again;
 * - over the device's rate: a QoS 1 publish (or a serial line) waits for its token, slowing the device
 *   down; a QoS 0 one is dropped and counted;
 * - valid: duplicate-checked and stored.
 *
 * The jobs live beside it: groupCommit.ts (the transaction and the acknowledgements after it),
 * duplicates.ts and rateLimit.ts (what is not stored twice, and how fast a device may send),
 * counterBounds.ts (what a rain gauge can count), rejections.ts and rejectionSampler.ts (what is refused
 * or recorded, and which rejections are stored),
 * deviceStates.ts (each device's newest values and status), nativeIntake.ts (the decoders, and the
 * native transports' messages recorded on their devices' links).
 */

import type { Reading, RejectReason } from '../../../shared/src/telemetry.ts';
import { parseDeviceTopic } from '../../../shared/src/topics.ts';
import type { DeviceRegistry } from '../config/registry.ts';
import type { Config } from '../config/schema.ts';
import { type DecodeOptions, unregistered } from '../decode/decode.ts';
import type { ProfileLibrary } from '../decode/profiles/library/index.ts';
import { type DeviceStatus, decodeDeviceStatus, statusRejection } from '../decode/status.ts';
import { DeviceKeys } from '../deviceKey.ts';
import type { Registry } from '../metrics.ts';
import type { ComponentHealth, IngestResult, IngestSink, Log, RawMessage, Stage } from '../pipeline.ts';
import { type Quarantined, QuarantineRows, type ReleaseOutcome } from '../quarantine/rows.ts';
import type { DeviceStateRow, ReadingStore, StoredReading } from '../store/readings.ts';
import type { Db } from '../store/types.ts';
import type { WriteGate } from '../store/writeGate.ts';
import { CounterBounds } from './counterBounds.ts';
import type { DeviceLinks } from './deviceLinks.ts';
import { DeviceStates } from './deviceStates.ts';
import { Duplicates } from './duplicates.ts';
import { GroupCommit, type Settle } from './groupCommit.ts';
import { IngestMetrics } from './metrics.ts';
import { NativeIntake } from './nativeIntake.ts';
import { QuarantineIntake } from './quarantine.ts';
import { Pacer, RateLimiter } from './rateLimit.ts';
import { importMessage, Rejections, type Why } from './rejections.ts';

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
  /** Whether the store takes writes (read-only on a full disk). */
  gate?: WriteGate;
  /** The rejection table's row cap (storage.rejectionsKept). */
  rejectionsKept?: number;
  /** The profiles devices name (default: the library). */
  profiles?: ProfileLibrary;
  /** The quarantine table (default: the one of `db`). */
  quarantine?: QuarantineRows;
}

type StatusListener = (siteId: string, deviceId: string, status: DeviceStatus, at: number) => void;

/** The promise form of a call that settles a callback. */
const promised = (run: (done: Settle) => void): Promise<IngestResult> =>
  new Promise((resolve, reject) => run((err, result) => (err ? reject(err) : resolve(result!))));

/** A QoS 0 message waits at most this long for its device's token; beyond, it is dropped (counted). */
const QOS0_MAX_WAIT_MS = 1000;

/** What an import hands over and is told back. */
export interface ReadingsOutcome {
  stored: number;
  duplicates: number;
  /** Present when some were rejected. */
  rejected?: number;
  rejectedByReason?: Partial<Record<RejectReason, number>>;
}

export class IngestStage implements IngestSink, Stage {
  readonly name = 'ingest';
  private statusListeners: StatusListener[] = [];
  private readonly decodeOpts: DecodeOptions;
  private readonly m: IngestMetrics;
  private readonly commits: GroupCommit;
  private readonly duplicates: Duplicates;
  private readonly limiter: RateLimiter;
  private readonly invalidLimiter: RateLimiter;
  private readonly pacer = new Pacer();
  /** One key string per device for the per-device maps below. */
  private readonly keys = new DeviceKeys();
  private readonly bounds: CounterBounds;
  private readonly rejections: Rejections;
  private readonly states: DeviceStates;
  readonly quarantine: QuarantineIntake;
  /** The decoders, and the native transports' messages recorded on their devices' links. */
  private readonly intake: NativeIntake;
  /** How each device of a native transport was heard (its inputs and this stage record into it). */
  readonly links: DeviceLinks;

  constructor(private readonly o: IngestStageOptions) {
    this.decodeOpts = {
      maxPayloadBytes: o.ingest.maxPayloadBytes,
      maxFutureMs: o.ingest.maxFutureSeconds * 1000,
    };
    this.states = new DeviceStates(o.store, o.log, this.keys);
    this.intake = new NativeIntake(o.registry, this.states, o.profiles);
    this.links = this.intake.links;
    this.duplicates = new Duplicates(o.store, o.ingest.seqDedupWindowSec, this.keys);
    this.limiter = new RateLimiter(o.ingest);
    this.invalidLimiter = new RateLimiter(o.ingest);
    this.bounds = new CounterBounds(o.store, o.ingest.maxRainInPerHour, this.keys);
    this.m = new IngestMetrics(o.metrics);
    this.m.paced.collect((set) => set(this.pacer.waiting));
    const quarantineRows = o.quarantine ?? new QuarantineRows(o.db);
    this.commits = new GroupCommit({
      quarantine: quarantineRows,
      quarantineRolledBack: (rec) => this.quarantine.rolledBack(rec),
      db: o.db,
      store: o.store,
      metrics: this.m,
      log: o.log,
      ...(o.maxBatch !== undefined ? { maxBatch: o.maxBatch } : {}),
      ...(o.inTransaction ? { inTransaction: o.inTransaction } : {}),
      ...(o.gate ? { gate: o.gate } : {}),
      ...(o.rejectionsKept !== undefined ? { rejectionsKept: o.rejectionsKept } : {}),
      applied: (stored) => {
        for (const r of stored) this.states.applyReading(r);
      },
      rolledBack: (r) => {
        this.duplicates.forget(r);
        this.bounds.forget(r);
      },
      rejectionsRolledBack: () => this.rejections.rolledBack(),
    });
    this.rejections = new Rejections(this.commits, this.m, o.ingest.rejectionSamplePerMinute);
    this.quarantine = new QuarantineIntake(quarantineRows, this.commits, this.rejections, {
      perDevice: o.ingest.quarantinePerClient ?? o.ingest.quarantinePerDevice,
      total: o.ingest.quarantineTotal,
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

  /** Hands on what is waiting for its rate, commits what is pending and saves the device states. */
  async stop(): Promise<void> {
    this.pacer.flush();
    this.commits.flush();
    this.states.stop();
  }

  health(): ComponentHealth {
    const readOnly = this.o.gate?.readOnly;
    const failing = this.commits.failing;
    return {
      name: this.name,
      ok: readOnly === undefined && failing === undefined,
      detail:
        readOnly !== undefined
          ? `local store read-only: ${readOnly}`
          : failing !== undefined
            ? `local store commits failing: ${failing}`
            : 'storing',
      devices: this.states.size,
      waiting: this.commits.waiting,
      ...(this.pacer.waiting ? { paced: this.pacer.waiting } : {}),
    };
  }

  ingest(msg: RawMessage): Promise<IngestResult> {
    return promised((done) => this.ingestWith(msg, done));
  }

  /** ingest() with a callback: no promise per message for a transport that acknowledges each one. */
  ingestWith(msg: RawMessage, settle: Settle): void {
    const topic = msg.transport === 'mqtt' ? parseDeviceTopic(msg.topic) : undefined;
    if (topic?.kind === 'status') {
      this.status(msg, topic.siteId, topic.deviceId, settle);
      return;
    }
    if (topic?.kind === 'other') {
      this.m.count(msg.transport, 'ignored');
      settle(null, { status: 'ignored' });
      return;
    }
    const decoded = this.intake.decode(msg, this.decodeOpts);
    const done = this.intake.settle(msg, decoded, settle);
    if (!decoded.ok) {
      this.invalid(msg, decoded, done);
      return;
    }
    const r = decoded.reading;
    const jump = this.bounds.check(r, decoded.device);
    if (jump) {
      this.invalid(
        msg,
        { reason: 'implausible_rate', detail: jump, siteId: r.siteId, deviceId: r.deviceId },
        done,
      );
      return;
    }
    if (!this.pace(this.limiter, this.keys.of(r.siteId, r.deviceId), msg, () => this.submit(r, done)))
      this.dropped(msg, r, done);
  }

  /**
   * Runs `run` when the device's bucket gives the message its token: at once, or after a wait (behind
   * whatever of the device already waits, so its acknowledgements keep their order). A QoS 0 message whose
   * token is more than a second off does not wait: returns false.
   */
  private pace(limiter: RateLimiter, key: string, msg: RawMessage, run: () => void): boolean {
    const wait = limiter.reserve(
      key,
      msg.receivedAt,
      msg.qos === 0 ? QOS0_MAX_WAIT_MS : Number.POSITIVE_INFINITY,
    );
    if (wait < 0) return false;
    if (wait === 0 && !this.pacer.holds(key)) run();
    else {
      this.m.pacedTotal.inc();
      this.pacer.defer(key, wait, run);
    }
    return true;
  }

  /**
   * A message that is not a valid reading. Invalid messages have a bucket of their own (the valid
   * allowance is not spent on them) and wait for its tokens too, so a device flooding garbage is slowed
   * down like any other; a QoS 0 one too far over is recorded at once instead.
   */
  private invalid(msg: RawMessage, why: Why & { ts?: number }, done: Settle): void {
    const reject = () =>
      this.quarantine.keeps(why)
        ? this.quarantine.keep(msg, why, done)
        : this.rejections.refuseOrRecord(msg, why, done);
    if (!this.pace(this.invalidLimiter, `${why.siteId ?? ''}/${why.deviceId ?? ''}`, msg, reject)) reject();
  }

  /**
   * Already-decoded readings (logger import): checked against the clock and the gauge's bound like live
   * data, duplicate-checked and stored.
   */
  async ingestReadings(readings: Reading[]): Promise<ReadingsOutcome> {
    const maxFuture = this.decodeOpts.maxFutureMs;
    const results = await Promise.all(
      readings.map((r) =>
        promised((done) => {
          if (r.ts > r.receivedAt + maxFuture) {
            const ahead = Math.round((r.ts - r.receivedAt) / 1000);
            const detail = `ts ${new Date(r.ts).toISOString()} is ${ahead} s ahead of the gateway clock`;
            this.rejections.record(importMessage(r), { reason: 'future_timestamp', detail, ...ids(r) }, done);
            return;
          }
          const device = this.o.registry.lookup(r.siteId, r.deviceId);
          const jump = device && this.bounds.check(r, device);
          if (jump)
            this.rejections.record(
              importMessage(r),
              { reason: 'implausible_rate', detail: jump, ...ids(r) },
              done,
            );
          else this.submit(r, done);
        }),
      ),
    );
    let stored = 0;
    let duplicates = 0;
    let rejected = 0;
    const rejectedByReason: ReadingsOutcome['rejectedByReason'] = {};
    for (const res of results) {
      if (res.status === 'stored') stored++;
      else if (res.status === 'rejected') {
        rejected++;
        rejectedByReason[res.reason] = (rejectedByReason[res.reason] ?? 0) + 1;
      } else duplicates++;
    }
    return { stored, duplicates, ...(rejected ? { rejected, rejectedByReason } : {}) };
  }

  /**
   * Quarantined messages released: decoded again with the device as registered now, each time moved by
   * `offsetMs` (a clock correction), then checked against the clock and the gauge's bound and stored like
   * late data. One still ahead of the clock after the correction is not released.
   */
  async release(msgs: readonly Quarantined[], offsetMs: number): Promise<ReleaseOutcome[]> {
    const opts = { ...this.decodeOpts, maxFutureMs: Number.POSITIVE_INFINITY };
    const now = (this.o.now ?? Date.now)();
    return Promise.all(
      msgs.map(async (q): Promise<ReleaseOutcome> => {
        const d = this.intake.decode({ ...q, transport: q.transport as RawMessage['transport'] }, opts);
        if (!d.ok) return { id: q.id, outcome: `rejected: ${d.reason}` };
        const r = { ...d.reading, ts: d.reading.ts + offsetMs };
        if (r.ts > now + this.decodeOpts.maxFutureMs) return { id: q.id, outcome: 'still_ahead', ts: r.ts };
        const jump = this.bounds.check(r, d.device);
        if (jump) return { id: q.id, outcome: 'rejected: implausible_rate' };
        const res = await promised((done) => this.submit(r, done));
        return { id: q.id, outcome: res.status === 'stored' ? 'stored' : 'duplicate' };
      }),
    );
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
    return promised((done) => this.rejections.record(msg, { reason, detail, siteId, deviceId }, done));
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

  /** A QoS 0 message over the device's rate: dropped, counted, its rejection sampled. */
  private dropped(msg: RawMessage, r: Reading, done: Settle): void {
    const detail = `device ${r.siteId}/${r.deviceId} exceeds its message rate (QoS 0 dropped)`;
    this.rejections.record(msg, { reason: 'rate_limited', detail, ...ids(r) }, done, 'dropped');
  }

  private status(msg: RawMessage, siteId: string, deviceId: string, done: Settle): void {
    if (!this.o.registry.lookup(siteId, deviceId)) {
      // A status says nothing once the device is added: recorded, not kept.
      this.rejections.record(msg, { ...unregistered(siteId, deviceId), siteId, deviceId }, done);
      return;
    }
    const decoded = decodeDeviceStatus(msg.payload, msg.receivedAt);
    if (!decoded.ok) {
      const r = statusRejection(decoded);
      this.rejections.refuseOrRecord(msg, { ...r, siteId, deviceId }, done);
      return;
    }
    // The state keeps the arrival time, not a time the payload names.
    this.states.setStatus(siteId, deviceId, decoded.status, msg.receivedAt);
    for (const fn of this.statusListeners) fn(siteId, deviceId, decoded.status, msg.receivedAt);
    this.m.count(msg.transport, 'status');
    done(null, { status: 'ignored' });
  }
}

/** A reading's device, for its rejection. */
const ids = (r: Reading) => ({ siteId: r.siteId, deviceId: r.deviceId });
