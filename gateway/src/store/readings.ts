/**
 * Readings, device state and rejections in the local store. Readings are append-only and chained by
 * hash: each row carries sha256(previous hash + its canonical content), so a report can cite the head.
 */

import type { Reading, RejectReason } from '../../../shared/src/telemetry.ts';
import { type ChainCheck, GENESIS_HASH, HashChain, linkHash } from './chain.ts';
import type { Db } from './db.ts';
import { where } from './where.ts';

export interface StoredReading extends Reading {
  id: number;
  hash: string;
}

export interface RejectionRecord {
  id?: number;
  at: number;
  transport: string;
  topic: string;
  siteId?: string | undefined;
  deviceId?: string | undefined;
  reason: RejectReason;
  detail: string;
  excerpt: string;
  /** Rejections like this one (same device and reason, same minute) counted but not stored. */
  suppressed?: number;
}

/** The longest topic and detail a rejection row keeps, so the table's size is bounded by its row cap. */
const MAX_TOPIC = 300;
const MAX_DETAIL = 500;
const cut = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);

export interface DeviceStateRow {
  siteId: string;
  deviceId: string;
  lastTs: number | null;
  lastReceivedAt: number | null;
  status: 'online' | 'offline' | 'unknown';
  statusAt: number | null;
  latest: Record<string, { value: number | boolean; ts: number }>;
}

/** The stored form of a reading's values (the `data` column), also the hashed content. */
export function readingData(r: Reading): string {
  return JSON.stringify(r.alarms ? { v: r.values, a: r.alarms } : { v: r.values });
}

/** A reading's chained content: its identity and its values, as stored. */
function readingContent(r: Reading, data: string): string {
  return `|${r.siteId}|${r.deviceId}|${r.deviceKind}|${r.ts}|${r.seq ?? ''}|${data}`;
}

/** The chain link of a reading: sha256 over the previous hash and the reading's content. */
export function readingHash(prev: string, r: Reading, data: string = readingData(r)): string {
  return linkHash(prev, readingContent(r, data));
}

const READINGS_CHAIN = {
  table: 'readings',
  seq: 'id',
  content: (row: Record<string, unknown>) => readingContent(rowToReading(row), row.data as string),
  storesPrev: false,
  // Row ids are not a gap-free sequence (a reading removed by hand leaves no trace in them).
  contiguous: false,
};

export class ReadingStore {
  private insertReading;
  private insertRejection;
  private addSuppressedStmt;
  private lastHash: string;
  private rows: number | undefined;
  private readonly chain: HashChain;

  constructor(private readonly db: Db) {
    this.insertReading = db.prepare(
      `INSERT OR IGNORE INTO readings (site_id, device_id, kind, ts, seq, received_at, transport, data, hash)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.insertRejection = db.prepare(
      `INSERT INTO rejections (at, transport, topic, site_id, device_id, reason, detail, excerpt) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.addSuppressedStmt = db.prepare('UPDATE rejections SET suppressed = suppressed + ? WHERE id = ?');
    this.chain = new HashChain(db, READINGS_CHAIN);
    this.lastHash = this.chain.head()?.hash ?? GENESIS_HASH;
  }

  /**
   * Inserts a reading (call inside a transaction). Returns the new row id, or undefined when a reading
   * with the same device and source timestamp is already stored (a duplicate delivery).
   */
  insert(r: Reading): { id: number; hash: string } | undefined {
    const data = readingData(r);
    const hash = readingHash(this.lastHash, r, data);
    const res = this.insertReading.run(
      r.siteId,
      r.deviceId,
      r.deviceKind,
      r.ts,
      r.seq ?? null,
      r.receivedAt,
      r.transport,
      data,
      hash,
    );
    if (res.changes === 0) return undefined;
    this.lastHash = hash;
    if (this.rows !== undefined) this.rows++;
    return { id: Number(res.lastInsertRowid), hash };
  }

  /** Call when a transaction that inserted readings rolled back. */
  resyncHead(): void {
    this.lastHash = this.chain.head()?.hash ?? GENESIS_HASH;
    this.rows = undefined;
  }

  head(): { id: number; hash: string } {
    const last = this.chain.head();
    return last ? { id: last.seq, hash: last.hash } : { id: 0, hash: GENESIS_HASH };
  }

  /** Inserts a rejection row (call inside a transaction); returns its id. */
  insertRejectionRow(r: RejectionRecord): number {
    return Number(
      this.insertRejection.run(
        r.at,
        r.transport,
        cut(r.topic, MAX_TOPIC),
        r.siteId ?? null,
        r.deviceId ?? null,
        r.reason,
        cut(r.detail, MAX_DETAIL),
        r.excerpt,
      ).lastInsertRowid,
    );
  }

  /** Adds to a stored rejection the count of like ones that were not stored. */
  addSuppressed(id: number, n: number): void {
    this.addSuppressedStmt.run(n, id);
  }

  /** Keeps the newest `keep` rejection rows (the table's size cap). */
  capRejections(keep: number): number {
    return this.db
      .prepare('DELETE FROM rejections WHERE id <= (SELECT MAX(id) FROM rejections) - ?')
      .run(keep).changes;
  }

  /** The device's newest counter reading before source time `ts` (a late reading's predecessor). */
  counterBefore(siteId: string, deviceId: string, ts: number): { ts: number; tips: number } | undefined {
    const row = this.db
      .prepare(
        `SELECT ts, json_extract(data, '$.v.rainTips') AS tips FROM readings
         WHERE site_id = ? AND device_id = ? AND ts < ? AND json_extract(data, '$.v.rainTips') IS NOT NULL
         ORDER BY ts DESC LIMIT 1`,
      )
      .get(siteId, deviceId, ts) as { ts: number; tips: number } | undefined;
    return row;
  }

  recentRejections(opts: { limit?: number; reason?: string; siteId?: string } = {}): RejectionRecord[] {
    const w = where([
      ['reason = ?', opts.reason],
      ['site_id = ?', opts.siteId],
    ]);
    const rows = this.db
      .prepare(
        `SELECT id, at, transport, topic, site_id, device_id, reason, detail, excerpt, suppressed FROM rejections
         ${w.sql} ORDER BY id DESC LIMIT ?`,
      )
      .all(...w.params, opts.limit ?? 100) as Array<Record<string, unknown>>;
    return rows.map((r) => ({
      id: r.id as number,
      at: r.at as number,
      transport: r.transport as string,
      topic: r.topic as string,
      siteId: (r.site_id as string | null) ?? undefined,
      deviceId: (r.device_id as string | null) ?? undefined,
      reason: r.reason as RejectReason,
      detail: r.detail as string,
      excerpt: r.excerpt as string,
      suppressed: r.suppressed as number,
    }));
  }

  /** Recent sequence numbers of a device, newest first, for duplicate detection after a restart. */
  recentSeqs(siteId: string, deviceId: string, limit: number): Array<{ seq: number; ts: number }> {
    return this.db
      .prepare(
        `SELECT seq, ts FROM readings WHERE site_id = ? AND device_id = ? AND seq IS NOT NULL ORDER BY id DESC LIMIT ?`,
      )
      .all(siteId, deviceId, limit) as Array<{ seq: number; ts: number }>;
  }

  /** Readings of one device in a source-time range, oldest first. */
  query(opts: {
    siteId: string;
    deviceId?: string;
    from: number;
    to: number;
    limit: number;
  }): StoredReading[] {
    const out: StoredReading[] = [];
    for (const r of this.iterate(opts)) {
      if (out.length >= opts.limit) break;
      out.push(r);
    }
    return out;
  }

  /** The same readings one at a time, so a long range is never held in memory whole. */
  *iterate(opts: { siteId: string; deviceId?: string; from: number; to: number }): Generator<StoredReading> {
    const rows = this.db
      .prepare(
        `SELECT id, site_id, device_id, kind, ts, seq, received_at, transport, data, hash FROM readings
         WHERE site_id = ? ${opts.deviceId ? 'AND device_id = ?' : ''} AND ts >= ? AND ts <= ?
         ORDER BY ts, id`,
      )
      .iterate(
        ...[opts.siteId, ...(opts.deviceId ? [opts.deviceId] : []), opts.from, opts.to],
      ) as IterableIterator<Record<string, unknown>>;
    for (const row of rows) yield rowToReading(row);
  }

  /** The newest reading of a device by source time. */
  lastOf(siteId: string, deviceId: string): StoredReading | undefined {
    const row = this.db
      .prepare(
        `SELECT id, site_id, device_id, kind, ts, seq, received_at, transport, data, hash FROM readings
         WHERE site_id = ? AND device_id = ? ORDER BY ts DESC LIMIT 1`,
      )
      .get(siteId, deviceId) as Record<string, unknown> | undefined;
    return row ? rowToReading(row) : undefined;
  }

  /** Readings after a row id, in id order (replay for the rules after a restart). */
  after(id: number, limit: number): StoredReading[] {
    return (
      this.db
        .prepare(
          `SELECT id, site_id, device_id, kind, ts, seq, received_at, transport, data, hash FROM readings WHERE id > ? ORDER BY id LIMIT ?`,
        )
        .all(id, limit) as Array<Record<string, unknown>>
    ).map(rowToReading);
  }

  /** Readings stored: counted once at start, then kept up to date, so health checks stay cheap. */
  count(): number {
    this.rows ??= this.countRows();
    return this.rows;
  }

  private countRows(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM readings').get() as { n: number }).n;
  }

  saveDeviceStates(rows: DeviceStateRow[]): void {
    const stmt = this.db.prepare(
      `INSERT INTO device_state (site_id, device_id, last_ts, last_received_at, status, status_at, latest)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(site_id, device_id) DO UPDATE SET last_ts = excluded.last_ts, last_received_at = excluded.last_received_at,
         status = excluded.status, status_at = excluded.status_at, latest = excluded.latest`,
    );
    this.db.transaction(() => {
      for (const r of rows)
        stmt.run(
          r.siteId,
          r.deviceId,
          r.lastTs,
          r.lastReceivedAt,
          r.status,
          r.statusAt,
          JSON.stringify(r.latest),
        );
    })();
  }

  loadDeviceStates(): DeviceStateRow[] {
    return (this.db.prepare('SELECT * FROM device_state').all() as Array<Record<string, unknown>>).map(
      (r) => ({
        siteId: r.site_id as string,
        deviceId: r.device_id as string,
        lastTs: r.last_ts as number | null,
        lastReceivedAt: r.last_received_at as number | null,
        status: r.status as DeviceStateRow['status'],
        statusAt: r.status_at as number | null,
        latest: JSON.parse(r.latest as string),
      }),
    );
  }

  /**
   * Retention: deletes readings older than `before` (source time), rejections beyond `keepRejections`
   * and those received before `rejectionsBefore`. The hash of the newest deleted reading is kept as an
   * anchor so the chain stays verifiable.
   */
  prune(
    before: number,
    keepRejections: number,
    now: number,
    /** Keep readings above this id (not yet in InfluxDB), however old. */
    maxId: number = Number.MAX_SAFE_INTEGER,
    rejectionsBefore = 0,
  ): { readings: number; rejections: number } {
    const res = this.db.transaction(() => {
      const edge = this.db
        .prepare('SELECT id, hash FROM readings WHERE ts < ? AND id <= ? ORDER BY id DESC LIMIT 1')
        .get(before, maxId) as { id: number; hash: string } | undefined;
      let readings = 0;
      if (edge) {
        this.chain.anchor(edge.id, edge.hash, now);
        readings = this.db
          .prepare('DELETE FROM readings WHERE ts < ? AND id <= ?')
          .run(before, maxId).changes;
      }
      const rejections =
        this.capRejections(keepRejections) +
        this.db.prepare('DELETE FROM rejections WHERE at < ?').run(rejectionsBefore).changes;
      return { readings, rejections };
    })();
    if (this.rows !== undefined) this.rows -= res.readings;
    return res;
  }

  /** Recomputes the readings chain in id order, from the anchor retention left; reports the first broken row. */
  verifyChain(): ChainCheck {
    return this.chain.verify();
  }
}

export function rowToReading(r: Record<string, unknown>): StoredReading {
  const data = JSON.parse(r.data as string) as { v: Reading['values']; a?: Reading['alarms'] };
  const out: StoredReading = {
    id: r.id as number,
    hash: r.hash as string,
    siteId: r.site_id as string,
    deviceId: r.device_id as string,
    deviceKind: r.kind as Reading['deviceKind'],
    ts: r.ts as number,
    receivedAt: r.received_at as number,
    transport: r.transport as Reading['transport'],
    values: data.v,
  };
  if (r.seq !== null && r.seq !== undefined) out.seq = r.seq as number;
  if (data.a) out.alarms = data.a;
  return out;
}
