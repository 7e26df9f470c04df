/**
 * The `quarantine` table (store/schema/v5.ts): messages kept (as compact JSON) with their reason until they can be
 * used. Inserted inside the ingest stage's group commit; marked released, never deleted, in the
 * transaction that records how they left.
 */
import {
  aheadText,
  type QuarantineDevice,
  type QuarantineItem,
  type QuarantineQuery,
  type QuarantineReason,
} from '../../../shared/src/quarantine.ts';
import type { Db } from '../store/types.ts';
import { where } from '../store/where.ts';

/** What is kept of a quarantined message. */
export interface QuarantineRecord {
  receivedAt: number;
  transport: string;
  topic: string;
  /** Who sent it: the MQTT client id, else the device the message names (the caps count per device). */
  client: string;
  siteId: string;
  deviceId: string;
  reason: QuarantineReason;
  detail: string;
  /** The time the device stamped, when it stamped one. */
  sourceTs: number | undefined;
  payload: string;
}

interface Row {
  id: number;
  received_at: number;
  transport: string;
  topic: string;
  client: string;
  site_id: string;
  device_id: string;
  reason: QuarantineReason;
  detail: string;
  source_ts: number | null;
  payload: string;
  released_at: number | null;
  released_by: string | null;
  offset_ms: number | null;
  outcome: string | null;
  change_id: number | null;
}

/** A stored quarantined message. */
export interface Quarantined extends QuarantineRecord {
  id: number;
}

/** How a quarantined message left. */
/** What became of a quarantined message released: stored, a duplicate, rejected (why), or still ahead. */
export interface ReleaseOutcome {
  id: number;
  outcome: 'stored' | 'duplicate' | 'still_ahead' | `rejected: ${string}`;
  /** Still ahead: the corrected time. */
  ts?: number;
}

export interface Release {
  id: number;
  at: number;
  by: string;
  offsetMs: number;
  outcome: string;
  changeId: number | null;
}

const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

/** The reason in words a town clerk reads. */
export function why(reason: QuarantineReason, aheadSeconds: number | null): string {
  if (reason === 'unregistered_device') return 'The device is not registered yet: add it to release this.';
  return `The device's clock was ${aheadSeconds === null ? 'ahead' : aheadText(aheadSeconds)} of the gateway's: release it with a clock correction.`;
}

export class QuarantineRows {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      insert: db.prepare(
        `INSERT INTO quarantine (received_at, transport, topic, client, site_id, device_id, reason, detail, source_ts, payload)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      waitingOfDevice: db.prepare<[string, string], { n: number }>(
        'SELECT COUNT(*) AS n FROM quarantine WHERE site_id = ? AND device_id = ? AND released_at IS NULL',
      ),
      waitingInAll: db.prepare<[], { n: number }>(
        'SELECT COUNT(*) AS n FROM quarantine WHERE released_at IS NULL',
      ),
      release: db.prepare(
        'UPDATE quarantine SET released_at = ?, released_by = ?, offset_ms = ?, outcome = ?, change_id = ? WHERE id = ? AND released_at IS NULL',
      ),
    };
  }

  /** Inserts a quarantined message (inside a transaction); returns its id. */
  insert(r: QuarantineRecord): number {
    return Number(
      this.stmts.insert.run(
        r.receivedAt,
        r.transport,
        r.topic,
        r.client,
        r.siteId,
        r.deviceId,
        r.reason,
        r.detail,
        r.sourceTs ?? null,
        r.payload,
      ).lastInsertRowid,
    );
  }

  /** Messages of a device still waiting (whatever client sent them). */
  waitingOfDevice(siteId: string, deviceId: string): number {
    return this.stmts.waitingOfDevice.get(siteId, deviceId)?.n ?? 0;
  }

  /** Messages still waiting, in all. */
  waitingInAll(): number {
    return this.stmts.waitingInAll.get()?.n ?? 0;
  }

  /** A device's waiting messages, oldest first (all of them, or those of `ids`), for one reason. */
  waiting(
    siteId: string,
    deviceId: string,
    reason: QuarantineReason,
    ids?: readonly number[],
  ): Quarantined[] {
    const idList = ids ? `id IN (${ids.map(() => '?').join(',')})` : '';
    const w = where([
      ['site_id = ?', siteId],
      ['device_id = ?', deviceId],
      ['reason = ?', reason],
      [idList, ids ? [...ids] : undefined],
      ['released_at IS NULL', []],
    ]);
    return this.db
      .prepare<unknown[], Row>(`SELECT * FROM quarantine ${w.sql} ORDER BY id`)
      .all(...w.params)
      .map(toRecord);
  }

  /** Devices with messages waiting for one reason (to raise or re-raise what they need). */
  waitingDevices(reason: QuarantineReason): QuarantineDevice[] {
    return this.summary({ status: 'waiting', limit: 1000 }).filter((d) => d.reason === reason);
  }

  /** Marks messages released (inside the transaction of their change record). */
  markReleased(rs: readonly Release[]): void {
    for (const r of rs) this.stmts.release.run(r.at, r.by, r.offsetMs, r.outcome, r.changeId, r.id);
  }

  /** Newest first, `q.limit` of them; `afterId`: those before that message (the API's next page). */
  list(q: QuarantineQuery, sites?: readonly string[], afterId?: number): QuarantineItem[] {
    const w = this.filter(q, sites);
    const after = afterId === undefined ? '' : `${w.sql ? ' AND' : 'WHERE'} id < ?`;
    return this.db
      .prepare<unknown[], Row>(`SELECT * FROM quarantine ${w.sql}${after} ORDER BY id DESC LIMIT ?`)
      .all(...w.params, ...(afterId === undefined ? [] : [afterId]), q.limit)
      .map(toItem);
  }

  /** Waiting messages counted per device and reason. */
  summary(q: QuarantineQuery, sites?: readonly string[]): QuarantineDevice[] {
    const w = this.filter({ ...q, status: 'waiting' }, sites);
    return this.db
      .prepare<
        unknown[],
        {
          site_id: string;
          device_id: string;
          reason: QuarantineReason;
          n: number;
          first: number;
          last: number;
          ahead: number | null;
        }
      >(
        `SELECT site_id, device_id, reason, COUNT(*) AS n, MIN(received_at) AS first, MAX(received_at) AS last,
                MAX(source_ts - received_at) AS ahead
           FROM quarantine ${w.sql} GROUP BY site_id, device_id, reason ORDER BY site_id, device_id, reason`,
      )
      .all(...w.params)
      .map((r) => ({
        siteId: r.site_id,
        deviceId: r.device_id,
        reason: r.reason,
        waiting: r.n,
        firstReceivedAt: iso(r.first)!,
        lastReceivedAt: iso(r.last)!,
        maxAheadSeconds:
          r.reason === 'future_timestamp' && r.ahead !== null ? Math.round(r.ahead / 1000) : null,
      }));
  }

  private filter(q: QuarantineQuery, sites?: readonly string[]) {
    const scoped = sites ? `site_id IN (${sites.map(() => '?').join(',') || 'NULL'})` : '';
    return where([
      ['site_id = ?', q.siteId],
      ['device_id = ?', q.deviceId],
      [scoped, sites ? [...sites] : undefined],
      ['released_at IS NULL', q.status === 'waiting' ? [] : undefined],
      ['released_at IS NOT NULL', q.status === 'released' ? [] : undefined],
    ]);
  }
}

function toRecord(r: Row): Quarantined {
  return {
    id: r.id,
    receivedAt: r.received_at,
    transport: r.transport,
    topic: r.topic,
    client: r.client,
    siteId: r.site_id,
    deviceId: r.device_id,
    reason: r.reason,
    detail: r.detail,
    sourceTs: r.source_ts ?? undefined,
    payload: r.payload,
  };
}

function toItem(r: Row): QuarantineItem {
  const ahead =
    r.reason === 'future_timestamp' && r.source_ts !== null
      ? Math.round((r.source_ts - r.received_at) / 1000)
      : null;
  const { detail: _detail, ...held } = toRecord(r);
  return {
    ...held,
    receivedAt: iso(r.received_at)!,
    why: why(r.reason, ahead),
    sourceTs: iso(r.source_ts),
    aheadSeconds: ahead,
    status: r.released_at === null ? 'waiting' : 'released',
    releasedAt: iso(r.released_at),
    releasedBy: r.released_by,
    offsetSeconds: r.offset_ms === null ? null : r.offset_ms / 1000,
    outcome: r.outcome,
    changeId: r.change_id,
  };
}
