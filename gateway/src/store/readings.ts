/**
 * Readings, device state and rejections in the local store. Readings are append-only, and each is an
 * entry of the evidence log, appended in the same transaction: the row keeps its entry's index
 * (`log_idx`) and leaf hash (`hash`, hex), the leaf being SHA-256(0x00 || its canonical body,
 * `ledger/records.ts`). Retention deletes old rows only, and says so in the log.
 */

import type { Statement } from 'better-sqlite3';
import type { Reading, RejectReason } from '../../../shared/src/telemetry.ts';
import { leafHash } from '../ledger/merkle.ts';
import { readingStrings, recordBody } from '../ledger/records.ts';
import type { EvidenceLog } from './evidenceLog.ts';
import { type Page, pageSql, sitesIn } from './page.ts';
import { type KeptReadings, pruneKept } from './readingWindows.ts';
import type { Db } from './types.ts';
import { where } from './where.ts';

export interface StoredReading extends Reading {
  id: number;
  /** The leaf hash of its log entry, hex (version 3 put it in place of a release-0.1.0 chain hash). */
  hash: string;
  /** Its entry in the evidence log. */
  logIdx: number;
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

export class ReadingStore {
  private insertReading;
  private insertRejection;
  private addSuppressedStmt;
  private rows: number | undefined;
  private batching = false;
  /** Statements of the per-message paths, prepared once (those that iterate are prepared per call). */
  private readonly prepared = new Map<string, Statement>();

  constructor(
    private readonly db: Db,
    private readonly log: EvidenceLog,
  ) {
    this.insertReading = db.prepare(
      `INSERT OR IGNORE INTO readings (site_id, device_id, kind, ts, seq, received_at, transport, data, hash,
         log_idx) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.insertRejection = db.prepare(
      `INSERT INTO rejections (at, transport, topic, site_id, device_id, reason, detail, excerpt) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.addSuppressedStmt = db.prepare('UPDATE rejections SET suppressed = suppressed + ? WHERE id = ?');
  }

  /**
   * Inserts a reading and its log entry (call inside a transaction; within `batch()` the entries are
   * written at its end). Returns the new row id, or undefined when a reading with the same device and
   * source timestamp is already stored (a duplicate delivery).
   */
  insert(r: Reading): { id: number; hash: string; logIdx: number } | undefined {
    const { body, data } = readingStrings(r);
    const leaf = leafHash(body);
    const hash = leaf.toString('hex');
    const logIdx = this.log.nextIndex();
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
      logIdx,
    );
    if (res.changes === 0) return undefined;
    const id = Number(res.lastInsertRowid);
    this.log.stage('reading', id, r.receivedAt, null, leaf);
    if (!this.batching) this.log.flush();
    if (this.rows !== undefined) this.rows++;
    return { id, hash, logIdx };
  }

  /**
   * Runs `fn` (inside a transaction) with the log entries of the readings it inserts written together at
   * its end, in a few multi-row INSERTs instead of one each: the group commit's way.
   */
  batch<T>(fn: () => T): T {
    this.batching = true;
    try {
      const r = fn();
      this.log.flush();
      return r;
    } finally {
      this.batching = false;
    }
  }

  /** Call when a transaction that inserted readings rolled back: the log's edge is read again. */
  resyncHead(): void {
    this.log.resync();
    this.rows = undefined;
  }

  private stmt(sql: string): Statement {
    let st = this.prepared.get(sql);
    if (!st) {
      st = this.db.prepare(sql);
      this.prepared.set(sql, st);
    }
    return st;
  }

  /** The newest reading's row id (0 when there is none). */
  head(): { id: number } {
    const last = this.db.prepare('SELECT MAX(id) AS id FROM readings').get() as { id: number | null };
    return { id: last.id ?? 0 };
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
    return this.stmt('DELETE FROM rejections WHERE id <= (SELECT MAX(id) FROM rejections) - ?').run(keep)
      .changes;
  }

  /** The device's newest counter reading before source time `ts` (a late reading's predecessor). */
  counterBefore(siteId: string, deviceId: string, ts: number): { ts: number; tips: number } | undefined {
    const row = this.stmt(
      `SELECT ts, json_extract(data, '$.v.rainTips') AS tips FROM readings
         WHERE site_id = ? AND device_id = ? AND ts < ? AND json_extract(data, '$.v.rainTips') IS NOT NULL
         ORDER BY ts DESC LIMIT 1`,
    ).get(siteId, deviceId, ts) as { ts: number; tips: number } | undefined;
    return row;
  }

  recentRejections(
    opts: { limit?: number; reason?: string; siteId?: string; page?: Page; siteIds?: readonly string[] } = {},
  ): RejectionRecord[] {
    const page = pageSql('id', 'id', opts.page ?? { limit: opts.limit ?? 100 }, 'id DESC');
    const w = where([
      ['reason = ?', opts.reason],
      ['site_id = ?', opts.siteId],
      sitesIn('site_id', opts.siteIds),
      page.cond,
    ]);
    const rows = this.db
      .prepare(
        `SELECT id, at, transport, topic, site_id, device_id, reason, detail, excerpt, suppressed FROM rejections
         ${w.sql} ${page.tail}`,
      )
      .all(...w.params) as Array<Record<string, unknown>>;
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
    return this.stmt(
      `SELECT seq, ts FROM readings WHERE site_id = ? AND device_id = ? AND seq IS NOT NULL ORDER BY id DESC LIMIT ?`,
    ).all(siteId, deviceId, limit) as Array<{ seq: number; ts: number }>;
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
        `SELECT id, site_id, device_id, kind, ts, seq, received_at, transport, data, hash, log_idx FROM readings
         WHERE site_id = ? ${opts.deviceId ? 'AND device_id = ?' : ''} AND ts >= ? AND ts <= ?
         ORDER BY ts, id`,
      )
      .iterate(
        ...[opts.siteId, ...(opts.deviceId ? [opts.deviceId] : []), opts.from, opts.to],
      ) as IterableIterator<Record<string, unknown>>;
    for (const row of rows) yield rowToReading(row);
  }

  /** One reading by its row id. */
  byId(id: number): StoredReading | undefined {
    const row = this.db
      .prepare(
        'SELECT id, site_id, device_id, kind, ts, seq, received_at, transport, data, hash, log_idx FROM readings WHERE id = ?',
      )
      .get(id) as Record<string, unknown> | undefined;
    return row ? rowToReading(row) : undefined;
  }

  /** The newest reading of a device by source time. */
  lastOf(siteId: string, deviceId: string): StoredReading | undefined {
    const row = this.db
      .prepare(
        `SELECT id, site_id, device_id, kind, ts, seq, received_at, transport, data, hash, log_idx FROM readings
         WHERE site_id = ? AND device_id = ? ORDER BY ts DESC LIMIT 1`,
      )
      .get(siteId, deviceId) as Record<string, unknown> | undefined;
    return row ? rowToReading(row) : undefined;
  }

  /** The source time of a device's first reading on record, or null (none). */
  firstTs(siteId: string, deviceId: string): number | null {
    const row = this.stmt('SELECT MIN(ts) AS ts FROM readings WHERE site_id = ? AND device_id = ?').get(
      siteId,
      deviceId,
    ) as { ts: number | null } | undefined;
    return row?.ts ?? null;
  }

  /** Readings after a row id, in id order (replay for the rules after a restart). */
  after(id: number, limit: number): StoredReading[] {
    return (
      this.db
        .prepare(
          `SELECT id, site_id, device_id, kind, ts, seq, received_at, transport, data, hash, log_idx FROM readings WHERE id > ? ORDER BY id LIMIT ?`,
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
    const stmt = this.stmt(
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

  /** Removes every reading older than `before` (and at most `maxId`): how many, and the highest id. */
  private pruneAll(before: number, maxId: number): { readings: number; upToId: number | null } {
    const edge = this.db
      .prepare('SELECT MAX(id) AS id FROM readings WHERE ts < ? AND id <= ?')
      .get(before, maxId) as { id: number | null };
    if (edge.id === null) return { readings: 0, upToId: null };
    const n = this.db.prepare('DELETE FROM readings WHERE ts < ? AND id <= ?').run(before, maxId).changes;
    return { readings: n, upToId: edge.id };
  }

  /**
   * Retention: deletes readings older than `before` (source time), rejections beyond `keepRejections`
   * and those received before `rejectionsBefore`. Their log entries stay; a `retention` entry records
   * what was deleted, so a verifier knows those readings are gone by design.
   */
  prune(
    before: number,
    keepRejections: number,
    now: number,
    /** Keep readings above this id (an output, InfluxDB, does not have it yet), however old. */
    maxId: number = Number.MAX_SAFE_INTEGER,
    rejectionsBefore = 0,
    /** Readings behind a record, kept longer (`readingWindows.ts`). */
    kept?: KeptReadings,
  ): { readings: number; rejections: number } {
    const res = this.db.transaction(() => {
      const gone = kept?.windows.length
        ? pruneKept(this.db, before, maxId, kept)
        : this.pruneAll(before, maxId);
      const readings = gone.readings;
      if (gone.upToId !== null) {
        const record = { before, upToId: gone.upToId, readings, at: now };
        this.log.append([
          {
            kind: 'retention',
            ref: String(gone.upToId),
            at: now,
            body: recordBody('retention', record),
            keepBody: true,
          },
        ]);
      }
      const rejections =
        this.capRejections(keepRejections) +
        this.db.prepare('DELETE FROM rejections WHERE at < ?').run(rejectionsBefore).changes;
      return { readings, rejections };
    })();
    if (this.rows !== undefined) this.rows -= res.readings;
    return res;
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
    logIdx: (r.log_idx as number | null) ?? -1,
  };
  if (r.seq !== null && r.seq !== undefined) out.seq = r.seq as number;
  if (data.a) out.alarms = data.a;
  return out;
}
