/**
 * The ingest stage: decodes and validates raw messages, drops duplicates, bounds floods, and commits
 * readings and rejections to the local store in group commits. A message's promise resolves only after
 * its outcome is committed, so transports acknowledge durable data only.
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
import type { IngestResult, IngestSink, Log, RawMessage } from '../pipeline.ts';
import type { Db } from '../store/db.ts';
import type { DeviceStateRow, ReadingStore, RejectionRecord, StoredReading } from '../store/readings.ts';

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

/** Told the outcome once it is committed (or that the commit failed). */
type Settle = (err: Error | null, result?: IngestResult) => void;

/** The promise form of a call that settles a callback. */
const promised = (run: (done: Settle) => void): Promise<IngestResult> =>
  new Promise((resolve, reject) => run((err, result) => (err ? reject(err) : resolve(result!))));

type Pending =
  | { kind: 'reading'; reading: Reading; settle: Settle }
  | { kind: 'rejection'; rec: RejectionRecord; settle: Settle };

interface Bucket {
  tokens: number;
  at: number;
  lastLoggedAt: number;
}

const EXCERPT = 200;
const SEQ_MEMORY = 1024;

export class IngestStage implements IngestSink {
  private pending: Pending[] = [];
  private scheduled = false;
  private listeners: Array<(readings: StoredReading[]) => void> = [];
  private statusListeners: Array<
    (siteId: string, deviceId: string, status: DeviceStatus, at: number) => void
  > = [];
  private buckets = new Map<string, Bucket>();
  private lastArrivalTs = new Map<string, number>();
  private seqs = new Map<string, Map<number, number>>();
  private states = new Map<string, DeviceStateRow>();
  private dirty = new Set<string>();
  private flushTimer: NodeJS.Timeout | undefined;
  private readonly now: () => number;
  private readonly decodeOpts: DecodeOptions;
  private readonly m;

  constructor(private readonly o: IngestStageOptions) {
    this.now = o.now ?? Date.now;
    this.decodeOpts = {
      maxPayloadBytes: o.ingest.maxPayloadBytes,
      maxFutureMs: o.ingest.maxFutureSeconds * 1000,
    };
    for (const s of o.store.loadDeviceStates()) this.states.set(`${s.siteId}/${s.deviceId}`, s);
    this.m = {
      messages: o.metrics.counter('gateway_messages_total', 'Messages received, by transport and outcome'),
      rejections: o.metrics.counter('gateway_rejections_total', 'Messages rejected, by reason'),
      commits: o.metrics.counter('gateway_store_commits_total', 'Group commits to the local store'),
      rows: o.metrics.counter('gateway_store_writes_total', 'Rows written to the local store, by table'),
      commitSeconds: o.metrics.histogram(
        'gateway_store_commit_seconds',
        'Duration of a group commit',
        [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      ),
    };
  }

  /** Listeners run after each commit with the readings it stored (not duplicates), in commit order. */
  onStored(fn: (readings: StoredReading[]) => void): void {
    this.listeners.push(fn);
  }

  onDeviceStatus(fn: (siteId: string, deviceId: string, status: DeviceStatus, at: number) => void): void {
    this.statusListeners.push(fn);
  }

  start(): void {
    this.flushTimer = setInterval(() => this.flushDeviceStates(), 1000);
    this.flushTimer.unref();
  }

  async stop(): Promise<void> {
    if (this.flushTimer) clearInterval(this.flushTimer);
    this.flushTimer = undefined;
    if (this.pending.length) this.commit();
    this.flushDeviceStates();
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
      this.m.messages.inc({ transport: msg.transport, result: 'ignored' });
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
    if (!this.allow(r.siteId, r.deviceId, msg.receivedAt)) {
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
    return [...this.states.values()];
  }

  deviceState(siteId: string, deviceId: string): DeviceStateRow | undefined {
    return this.states.get(`${siteId}/${deviceId}`);
  }

  private submit(r: Reading, done: Settle): void {
    if (r.arrivalTs) {
      // Two readings stamped with the same arrival millisecond are still two readings: keep arrival stamps
      // strictly increasing per device so the (device, source time) duplicate rule cannot merge them.
      const key = `${r.siteId}/${r.deviceId}`;
      const last = this.lastArrivalTs.get(key) ?? 0;
      if (r.ts <= last) r.ts = last + 1;
      this.lastArrivalTs.set(key, r.ts);
    }
    if (r.seq !== undefined && this.seenSeq(r)) {
      this.m.messages.inc({ transport: r.transport, result: 'duplicate' });
      done(null, { status: 'duplicate', reading: r });
      return;
    }
    this.pending.push({ kind: 'reading', reading: r, settle: done });
    this.schedule();
  }

  private seenSeq(r: Reading): boolean {
    const key = `${r.siteId}/${r.deviceId}`;
    let m = this.seqs.get(key);
    if (!m) {
      m = new Map();
      for (const row of this.o.store.recentSeqs(r.siteId, r.deviceId, SEQ_MEMORY).reverse())
        m.set(row.seq, row.ts);
      this.seqs.set(key, m);
    }
    const prevTs = m.get(r.seq!);
    if (prevTs !== undefined && Math.abs(prevTs - r.ts) <= this.o.ingest.seqDedupWindowSec * 1000)
      return true;
    m.delete(r.seq!);
    m.set(r.seq!, r.ts);
    if (m.size > SEQ_MEMORY) m.delete(m.keys().next().value as number);
    return false;
  }

  private forgetSeq(r: Reading): void {
    if (r.seq !== undefined) this.seqs.get(`${r.siteId}/${r.deviceId}`)?.delete(r.seq);
  }

  /** Token bucket per device: `deviceRatePerSec` sustained, `deviceBurst` at once. */
  private allow(siteId: string, deviceId: string, now: number): boolean {
    const key = `${siteId}/${deviceId}`;
    const { deviceRatePerSec: rate, deviceBurst: burst } = this.o.ingest;
    let b = this.buckets.get(key);
    if (!b) {
      b = { tokens: burst, at: now, lastLoggedAt: 0 };
      this.buckets.set(key, b);
    }
    b.tokens = Math.min(burst, b.tokens + ((now - b.at) / 1000) * rate);
    b.at = now;
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
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

  private refuseWith(
    msg: RawMessage,
    reason: RejectReason,
    detail: string,
    siteId: string | undefined,
    deviceId: string | undefined,
    done: Settle,
  ): void {
    this.m.messages.inc({ transport: msg.transport, result: 'rejected' });
    this.m.rejections.inc({ reason });
    // A flood is counted in full, but recorded at most once a second per device so it cannot flood the store.
    let persist = true;
    if (reason === 'rate_limited') {
      const b = this.buckets.get(`${siteId}/${deviceId}`);
      if (b && msg.receivedAt - b.lastLoggedAt < 1000) persist = false;
      else if (b) b.lastLoggedAt = msg.receivedAt;
    }
    const text =
      typeof msg.payload === 'string' ? msg.payload : msg.payload.subarray(0, EXCERPT * 4).toString('utf8');
    const rec: RejectionRecord = {
      at: msg.receivedAt,
      transport: msg.transport,
      topic: msg.topic,
      siteId,
      deviceId,
      reason,
      detail,
      excerpt: text.slice(0, EXCERPT),
    };
    if (!persist) {
      done(null, { status: 'rejected', reason, detail });
      return;
    }
    this.pending.push({ kind: 'rejection', rec, settle: done });
    this.schedule();
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
    const status = decoded.status;
    const st = this.state(siteId, deviceId);
    st.status = status;
    st.statusAt = msg.receivedAt;
    this.dirty.add(`${siteId}/${deviceId}`);
    for (const fn of this.statusListeners) fn(siteId, deviceId, status, msg.receivedAt);
    this.m.messages.inc({ transport: msg.transport, result: 'status' });
    done(null, { status: 'ignored' });
  }

  private state(siteId: string, deviceId: string): DeviceStateRow {
    const key = `${siteId}/${deviceId}`;
    let s = this.states.get(key);
    if (!s) {
      s = {
        siteId,
        deviceId,
        lastTs: null,
        lastReceivedAt: null,
        status: 'unknown',
        statusAt: null,
        latest: {},
      };
      this.states.set(key, s);
    }
    return s;
  }

  private schedule(): void {
    const max = this.o.maxBatch ?? 5000;
    if (this.pending.length >= max) {
      this.commit();
      return;
    }
    if (this.scheduled) return;
    this.scheduled = true;
    // The group commit runs as soon as the current callback returns: a transport hands over everything
    // it has read in one go (MQTT parses a whole socket read at once), and that batch is committed and
    // acknowledged right away instead of waiting for every other socket's batch in this turn of the event
    // loop. Short-lived messages are also cheap for the garbage collector.
    queueMicrotask(() => {
      this.scheduled = false;
      if (this.pending.length) this.commit();
    });
  }

  /** One transaction for everything pending; then the promises settle and listeners run. */
  private commit(): void {
    const batch = this.pending;
    this.pending = [];
    const started = performance.now();
    const stored: StoredReading[] = [];
    const outcomes: IngestResult[] = new Array(batch.length);
    try {
      this.o.db.transaction(() => {
        let rejections = 0;
        for (let i = 0; i < batch.length; i++) {
          const p = batch[i]!;
          if (p.kind === 'rejection') {
            this.o.store.insertRejectionRow(p.rec);
            rejections++;
            outcomes[i] = { status: 'rejected', reason: p.rec.reason, detail: p.rec.detail };
            continue;
          }
          const row = this.o.store.insert(p.reading);
          if (!row) {
            outcomes[i] = { status: 'duplicate', reading: p.reading };
            continue;
          }
          stored.push(Object.assign(p.reading, row));
          outcomes[i] = { status: 'stored', reading: p.reading };
        }
        this.o.inTransaction?.();
        this.m.rows.inc({ table: 'readings' }, stored.length);
        if (rejections) this.m.rows.inc({ table: 'rejections' }, rejections);
      })();
    } catch (e) {
      this.o.store.resyncHead();
      const err = new Error(`local store commit failed: ${(e as Error).message}`);
      this.o.log.error(
        { err: (e as Error).message, batch: batch.length },
        'store commit failed; messages not acknowledged',
      );
      for (const p of batch) {
        if (p.kind === 'reading') this.forgetSeq(p.reading);
        p.settle(err);
      }
      return;
    }
    this.m.commits.inc();
    this.m.commitSeconds.observe((performance.now() - started) / 1000);
    for (const r of stored) this.applyState(r);
    for (let i = 0; i < batch.length; i++) {
      const o = outcomes[i]!;
      const p = batch[i]!;
      if (p.kind === 'reading') this.count(p.reading.transport, o.status);
      p.settle(null, o);
    }
    if (stored.length)
      for (const fn of this.listeners) {
        try {
          fn(stored);
        } catch (e) {
          this.o.log.error({ err: (e as Error).message }, 'a stored-readings listener failed');
        }
      }
  }

  private counters = new Map<string, (by?: number) => void>();
  private count(transport: string, result: string): void {
    const k = `${transport}/${result}`;
    let c = this.counters.get(k);
    if (!c) {
      c = this.m.messages.bind({ transport, result });
      this.counters.set(k, c);
    }
    c();
  }

  private applyState(r: Reading): void {
    const s = this.state(r.siteId, r.deviceId);
    if (s.lastTs === null || r.ts >= s.lastTs) s.lastTs = r.ts;
    if (s.lastReceivedAt === null || r.receivedAt > s.lastReceivedAt) s.lastReceivedAt = r.receivedAt;
    const values = r.values as Record<string, number>;
    for (const k in values) this.setLatest(s, k, values[k]!, r.ts);
    if (r.alarms) {
      const alarms = r.alarms as Record<string, boolean | undefined>;
      for (const k in alarms) {
        const v = alarms[k];
        if (v !== undefined) this.setLatest(s, `alarms.${k}`, v, r.ts);
      }
    }
    this.dirty.add(`${r.siteId}/${r.deviceId}`);
  }

  /** Late data never overwrites a newer value. */
  private setLatest(s: DeviceStateRow, key: string, value: number | boolean, ts: number): void {
    const cur = s.latest[key];
    if (!cur) s.latest[key] = { value, ts };
    else if (cur.ts <= ts) {
      cur.value = value;
      cur.ts = ts;
    }
  }

  private flushDeviceStates(): void {
    if (!this.dirty.size) return;
    const rows = [...this.dirty].map((k) => this.states.get(k)!).filter(Boolean);
    this.dirty.clear();
    try {
      this.o.store.saveDeviceStates(rows);
    } catch (e) {
      for (const r of rows) this.dirty.add(`${r.siteId}/${r.deviceId}`);
      this.o.log.error({ err: (e as Error).message }, 'saving device state failed; will retry');
    }
  }
}
