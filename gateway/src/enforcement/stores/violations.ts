/**
 * Notices of violation and stop-work orders, with their events: append-only, each row logged
 * (`logged.ts`, through the engine's unit of work). A notice's status and an order's being in effect are
 * derived from the events.
 */

import type { LoggedRows } from '../../alerts/stores/logged.ts';
import type {
  StopWorkEventFields,
  StopWorkFields,
  ViolationEventFields,
  ViolationFields,
} from '../../ledger/enforcementRecords.ts';
import { loggedRowsInRange, type Page } from '../../store/page.ts';
import type { PhotoCitation } from '../../store/photos.ts';
import { OPEN_END, type ReadingWindow } from '../../store/readingWindows.ts';
import type { Db } from '../../store/types.ts';
import { where } from '../../store/where.ts';
import type { EnforcementTable } from './logged.ts';

interface LoggedColumns {
  /** Its entry's leaf hash (hex) and index. */
  hash: string;
  log_idx: number;
}
export type ViolationRow = ViolationFields & LoggedColumns;
export type ViolationEventRow = ViolationEventFields & LoggedColumns;
export type StopWorkRow = StopWorkFields & LoggedColumns;
export type StopWorkEventRow = StopWorkEventFields & LoggedColumns;

/** A developer's report that a notice's violation was corrected cites photos (`main.ts` registers it). */
export const CORRECTION_PHOTOS: PhotoCitation = {
  sitesCiting: (sha) =>
    `SELECT v.site_id AS siteId FROM violation_events e JOIN violations v ON v.id = e.violation_id,
         json_each(e.photos) p
       WHERE instr(e.photos, ${sha}) > 0 AND p.value = ${sha}`,
  hashes: `SELECT p.value AS sha256 FROM violation_events e, json_each(e.photos) p WHERE e.photos != '[]'`,
};

/** The month before a notice or an order: what the site did that led to it. */
const BEFORE_MS = 30 * 86_400_000;

/**
 * The readings behind a notice of violation are kept with it (`store/readingWindows.ts`): every device's
 * of its site, from a month before it was issued until its correction was approved (while it is not,
 * for as long as it stands).
 */
export const VIOLATION_READINGS: ReadingWindow = {
  name: 'notices of violation',
  sql: `SELECT v.site_id AS site_id, NULL AS device_id, v.at - ${String(BEFORE_MS)} AS start,
      COALESCE((SELECT MAX(e.at) FROM violation_events e WHERE e.violation_id = v.id AND e.kind = 'approved'),
        ${String(OPEN_END)}) AS end FROM violations v`,
};

/** The readings behind a stop-work order, likewise: a month before it until it was lifted. */
export const STOP_WORK_READINGS: ReadingWindow = {
  name: 'stop-work orders',
  sql: `SELECT o.site_id AS site_id, NULL AS device_id, o.at - ${String(BEFORE_MS)} AS start,
      COALESCE((SELECT MAX(e.at) FROM stop_work_events e WHERE e.order_id = o.id AND e.kind = 'lifted'),
        ${String(OPEN_END)}) AS end FROM stop_work o`,
};

type New<R> = Omit<R, 'seq' | 'site_seq' | 'hash' | 'log_idx'>;

export class ViolationStore {
  private readonly stmts;

  constructor(
    private readonly db: Db,
    private readonly logged: LoggedRows<EnforcementTable>,
  ) {
    this.stmts = {
      insert: db.prepare(
        `INSERT INTO violations (seq, id, site_id, site_seq, inspection_id, nature, remedy, remedy_due_at,
           penalties, at, issued_by, appeal_by, parties, law, order_kind, hash, log_idx)
         VALUES (@seq, @id, @site_id, @site_seq, @inspection_id, @nature, @remedy, @remedy_due_at,
           @penalties, @at, @issued_by, @appeal_by, @parties, @law, @order_kind, @hash, @log_idx)`,
      ),
      insertEvent: db.prepare(
        `INSERT INTO violation_events (seq, violation_id, kind, at, by, text, photos, detail, hash, log_idx)
         VALUES (@seq, @violation_id, @kind, @at, @by, @text, @photos, @detail, @hash, @log_idx)`,
      ),
      insertOrder: db.prepare(
        `INSERT INTO stop_work (seq, id, site_id, site_seq, reason, violation_ids, at, issued_by, law, hash, log_idx)
         VALUES (@seq, @id, @site_id, @site_seq, @reason, @violation_ids, @at, @issued_by, @law, @hash, @log_idx)`,
      ),
      insertOrderEvent: db.prepare(
        `INSERT INTO stop_work_events (seq, order_id, kind, at, by, note, override, detail, hash, log_idx)
         VALUES (@seq, @order_id, @kind, @at, @by, @note, @override, @detail, @hash, @log_idx)`,
      ),
      count: db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM violations WHERE site_id = ?'),
      countOrders: db.prepare<[string], { n: number }>(
        'SELECT COUNT(*) AS n FROM stop_work WHERE site_id = ?',
      ),
      byId: db.prepare<[string], ViolationRow>('SELECT * FROM violations WHERE id = ?'),
      events: db.prepare<[string], ViolationEventRow>(
        'SELECT * FROM violation_events WHERE violation_id = ? ORDER BY seq',
      ),
      orderById: db.prepare<[string], StopWorkRow>('SELECT * FROM stop_work WHERE id = ?'),
      orderEvents: db.prepare<[string], StopWorkEventRow>(
        'SELECT * FROM stop_work_events WHERE order_id = ? ORDER BY seq',
      ),
      inEffect: db.prepare<[string], StopWorkRow>(
        `SELECT * FROM stop_work o WHERE site_id = ?
           AND NOT EXISTS (SELECT 1 FROM stop_work_events e WHERE e.order_id = o.id AND e.kind = 'lifted')
         ORDER BY seq DESC LIMIT 1`,
      ),
    };
  }

  /** Appends a notice with its log entry (call inside a transaction); returns its seq and entry index. */
  append(v: New<ViolationRow>): { seq: number; logIdx: number } {
    // Its place among the site's notices: a report citing them all shows a removed one as a gap.
    const site_seq = this.stmts.count.get(v.site_id)!.n + 1;
    return this.logged.append('violations', { ...v, site_seq }, this.stmts.insert);
  }

  appendEvent(e: New<ViolationEventRow>): number {
    return this.logged.append('violation_events', e, this.stmts.insertEvent).seq;
  }

  byId(id: string): ViolationRow | undefined {
    return this.stmts.byId.get(id);
  }

  events(id: string): ViolationEventRow[] {
    return this.stmts.events.all(id);
  }

  /** Notices issued in the range (inclusive), of one site or every site, in time order. */
  query(q: {
    siteId?: string | undefined;
    from?: number | undefined;
    to?: number | undefined;
    page?: Page | undefined;
    siteIds?: readonly string[] | undefined;
    /** A notice's status: its last appeal, correction, approval or reversal, `issued` before any (`statusOf`). */
    status?: string | undefined;
  }): ViolationRow[] {
    return loggedRowsInRange(this.db, 'violations', q, {
      time: 'at',
      order: 'at, seq',
      leaf: false,
      extra: [
        [
          `COALESCE((SELECT CASE e.kind WHEN 'heard' THEN 'reversed' ELSE e.kind END
             FROM violation_events e WHERE e.violation_id = violations.id
               AND (e.kind IN ('appealed', 'corrected', 'approved')
                 OR (e.kind = 'heard' AND json_extract(e.detail, '$.outcome') = 'reversed'))
             ORDER BY e.seq DESC LIMIT 1), 'issued') = ?`,
          q.status,
        ],
      ],
    });
  }

  appendOrder(o: New<StopWorkRow>): { seq: number; logIdx: number } {
    const site_seq = this.stmts.countOrders.get(o.site_id)!.n + 1;
    return this.logged.append('stop_work', { ...o, site_seq }, this.stmts.insertOrder);
  }

  appendOrderEvent(e: New<StopWorkEventRow>): number {
    return this.logged.append('stop_work_events', e, this.stmts.insertOrderEvent).seq;
  }

  orderById(id: string): StopWorkRow | undefined {
    return this.stmts.orderById.get(id);
  }

  orderEvents(id: string): StopWorkEventRow[] {
    return this.stmts.orderEvents.all(id);
  }

  /** The site's order in effect (not lifted), if any. */
  orderInEffect(siteId: string): StopWorkRow | undefined {
    return this.stmts.inEffect.get(siteId);
  }

  /** Orders of a site (or every site) issued up to `to`, in time order. */
  orders(q: { siteId?: string | undefined; to?: number | undefined }): StopWorkRow[] {
    const w = where([
      ['site_id = ?', q.siteId],
      ['at <= ?', q.to],
    ]);
    return this.db
      .prepare<unknown[], StopWorkRow>(`SELECT * FROM stop_work ${w.sql} ORDER BY at, seq`)
      .all(...w.params);
  }
}
