/**
 * The alert engine's tables in the gateway's SQLite store.
 *
 * alert_history, inspections and extensions are append-only (triggers abort any UPDATE or DELETE)
 * and chained by hash: hash = sha256(prev_hash + canonical JSON of the row's content columns).
 * notification_events is the outbox the dispatcher drains; rows are inserted in the transaction
 * that changes the alert.
 */

import { randomBytes } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { RuleId } from '../rules/index.ts';
import type { StormEvent } from '../rules/types.ts';
import {
  type ChainCheck,
  type ChainHead,
  canonicalJson,
  GENESIS_HASH,
  HashChain,
  linkHash,
} from '../store/chain.ts';
import { where } from '../store/where.ts';
import type { AlertStatus, HistoryAction, InspectionKind } from './dto.ts';

export type Db = Database.Database;

export { canonicalJson } from '../store/chain.ts';

export interface AlertRow {
  id: string;
  key: string;
  rule: RuleId;
  site_id: string;
  device_id: string | null;
  status: AlertStatus;
  raised_at: number;
  due_at: number | null;
  original_due_at: number | null;
  message: string;
  evidence: string;
  acknowledged_at: number | null;
  acknowledged_by: string | null;
  resolved_at: number | null;
  resolution: 'auto' | 'manual' | null;
  resolved_by: string | null;
  resolution_message: string | null;
  resolution_evidence: string | null;
  within_deadline: number | null;
  overdue_notified: number;
  reminders_sent: string;
  created_at: number;
  updated_at: number;
}

export interface HistoryRow {
  seq: number;
  alert_id: string;
  at: number;
  source_at: number | null;
  actor: string;
  action: HistoryAction;
  detail: string;
  prev_hash: string;
  hash: string;
}

export interface StormRow {
  id: string;
  site_id: string;
  device_id: string;
  start: number;
  end: number;
  tips: number;
  inches: number;
  qualified: number;
  threshold_at: number | null;
  due_at: number | null;
  closed: number;
  created_at: number;
  updated_at: number;
}

export interface InspectionRow {
  seq: number;
  id: string;
  site_id: string;
  at: number;
  inspector: string;
  kind: InspectionKind;
  notes: string;
  recorded_at: number;
  recorded_by: string;
  prev_hash: string;
  hash: string;
}

export interface ExtensionRow {
  seq: number;
  alert_id: string;
  old_due: number;
  new_due: number;
  engineer: string;
  letter_ref: string;
  note: string | null;
  at: number;
  by: string;
  prev_hash: string;
  hash: string;
}

export interface TimerRow {
  id: number;
  alert_id: string;
  kind: 'reminder' | 'overdue';
  hours: number | null;
  due_at: number;
  fire_at: number;
  fired_at: number | null;
  outcome: 'sent' | 'skipped' | 'cancelled' | null;
}

/** Append-only tables and the columns their hash covers, in this order of keys (sorted when hashed). */
export const CHAINED_TABLES = {
  alert_history: ['seq', 'alert_id', 'at', 'source_at', 'actor', 'action', 'detail'],
  inspections: ['seq', 'id', 'site_id', 'at', 'inspector', 'kind', 'notes', 'recorded_at', 'recorded_by'],
  extensions: ['seq', 'alert_id', 'old_due', 'new_due', 'engineer', 'letter_ref', 'note', 'at', 'by'],
} as const;
export type ChainedTable = keyof typeof CHAINED_TABLES;

/** sha256(prev_hash + canonical JSON of the row's chained columns). */
export function chainHash(table: ChainedTable, prevHash: string, row: Record<string, unknown>): string {
  return linkHash(prevHash, chainedContent(table, row));
}

function chainedContent(table: ChainedTable, row: Record<string, unknown>): string {
  const content: Record<string, unknown> = {};
  for (const c of CHAINED_TABLES[table]) content[c] = row[c] ?? null;
  return canonicalJson(content);
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A 26-character ULID: 48 bits of time then 80 random bits, in Crockford base 32 (sorts by time). */
export function ulid(time: number): string {
  let t = Math.max(0, Math.floor(time));
  let timePart = '';
  for (let i = 0; i < 10; i++) {
    timePart = CROCKFORD[t % 32] + timePart;
    t = Math.floor(t / 32);
  }
  const rnd = randomBytes(16);
  let randPart = '';
  for (let i = 0; i < 16; i++) randPart += CROCKFORD[rnd[i]! & 31];
  return timePart + randPart;
}

export interface NewAlert {
  id: string;
  key: string;
  rule: RuleId;
  siteId: string;
  deviceId: string | null;
  raisedAt: number;
  dueAt: number | null;
  message: string;
  evidence: string;
  now: number;
}

export interface AlertQuery {
  siteId?: string;
  status?: AlertStatus | AlertStatus[];
  rule?: string;
  /** true: only overdue (unresolved and now > due); false: only not overdue. */
  overdue?: boolean;
  /** Source time window on raisedAt. */
  from?: number;
  to?: number;
  limit?: number;
}

/** Prepared statements and row-level operations. The engine owns transactions and lifecycle logic. */
export class AlertStore {
  private readonly stmts;
  private readonly chains: Record<ChainedTable, HashChain>;

  constructor(readonly db: Db) {
    const chain = (table: ChainedTable) =>
      new HashChain(db, {
        table,
        seq: 'seq',
        content: (row) => chainedContent(table, row),
        storesPrev: true,
        contiguous: true,
      });
    this.chains = {
      alert_history: chain('alert_history'),
      inspections: chain('inspections'),
      extensions: chain('extensions'),
    };
    this.stmts = {
      alertById: db.prepare<[string], AlertRow>('SELECT * FROM alerts WHERE id = ?'),
      alertByKey: db.prepare<[string, string], AlertRow>(
        'SELECT * FROM alerts WHERE site_id = ? AND key = ?',
      ),
      insertAlert: db.prepare(
        `INSERT INTO alerts (id, key, rule, site_id, device_id, status, raised_at, due_at, original_due_at,
           message, evidence, created_at, updated_at)
         VALUES (@id, @key, @rule, @siteId, @deviceId, 'open', @raisedAt, @dueAt, @dueAt, @message, @evidence,
           @now, @now)`,
      ),
      updateContent: db.prepare(
        `UPDATE alerts SET due_at = @dueAt, original_due_at = @originalDueAt, message = @message,
           evidence = @evidence, overdue_notified = @overdueNotified, updated_at = @now WHERE id = @id`,
      ),
      acknowledge: db.prepare(
        `UPDATE alerts SET status = 'acknowledged', acknowledged_at = @now, acknowledged_by = @actor,
           updated_at = @now WHERE id = @id`,
      ),
      resolve: db.prepare(
        `UPDATE alerts SET status = 'resolved', resolved_at = @resolvedAt, resolution = @how, resolved_by = @by,
           resolution_message = @message, resolution_evidence = @evidence, within_deadline = @withinDeadline,
           updated_at = @now WHERE id = @id`,
      ),
      extend: db.prepare(
        'UPDATE alerts SET due_at = @dueAt, overdue_notified = 0, updated_at = @now WHERE id = @id',
      ),
      setOverdue: db.prepare('UPDATE alerts SET overdue_notified = 1, updated_at = ? WHERE id = ?'),
      setReminders: db.prepare('UPDATE alerts SET reminders_sent = ?, updated_at = ? WHERE id = ?'),
      overdueCandidates: db.prepare<[number], AlertRow>(
        `SELECT * FROM alerts WHERE status != 'resolved' AND overdue_notified = 0 AND due_at < ?
         ORDER BY due_at`,
      ),
      openAlertsBegunBy: db.prepare<[string, string, number], AlertRow>(
        `SELECT * FROM alerts WHERE site_id = ? AND rule IN (SELECT value FROM json_each(?))
           AND status != 'resolved' AND raised_at <= ? ORDER BY raised_at`,
      ),
      historyOf: db.prepare<[string], HistoryRow>(
        'SELECT * FROM alert_history WHERE alert_id = ? ORDER BY seq',
      ),
      historyOfMany: db.prepare<[string], HistoryRow>(
        `SELECT * FROM alert_history WHERE alert_id IN (SELECT value FROM json_each(?)) ORDER BY seq`,
      ),
      insertHistory: db.prepare(
        `INSERT INTO alert_history (seq, alert_id, at, source_at, actor, action, detail, prev_hash, hash)
         VALUES (@seq, @alert_id, @at, @source_at, @actor, @action, @detail, @prev_hash, @hash)`,
      ),
      upsertStorm: db.prepare(
        `INSERT INTO storms (id, site_id, device_id, start, end, tips, inches, qualified, threshold_at, due_at,
           closed, created_at, updated_at, superseded_by)
         VALUES (@id, @siteId, @deviceId, @start, @end, @tips, @inches, @qualified, @thresholdAt, @dueAt,
           @closed, @now, @now, @supersededBy)
         ON CONFLICT (id) DO UPDATE SET end = excluded.end, tips = excluded.tips, inches = excluded.inches,
           qualified = excluded.qualified, threshold_at = excluded.threshold_at, due_at = excluded.due_at,
           closed = excluded.closed, updated_at = excluded.updated_at, superseded_by = excluded.superseded_by`,
      ),
      stormById: db.prepare<[string], StormRow>('SELECT * FROM storms WHERE id = ?'),
      insertInspection: db.prepare(
        `INSERT INTO inspections (seq, id, site_id, at, inspector, kind, notes, recorded_at, recorded_by,
           prev_hash, hash)
         VALUES (@seq, @id, @site_id, @at, @inspector, @kind, @notes, @recorded_at, @recorded_by,
           @prev_hash, @hash)`,
      ),
      inspectionById: db.prepare<[string], InspectionRow>('SELECT * FROM inspections WHERE id = ?'),
      firstCoveringInspection: db.prepare<[string, number, string], InspectionRow>(
        `SELECT * FROM inspections WHERE site_id = ? AND at >= ?
           AND kind IN (SELECT value FROM json_each(?)) ORDER BY at, seq LIMIT 1`,
      ),
      insertExtension: db.prepare(
        `INSERT INTO extensions (seq, alert_id, old_due, new_due, engineer, letter_ref, note, at, by,
           prev_hash, hash)
         VALUES (@seq, @alert_id, @old_due, @new_due, @engineer, @letter_ref, @note, @at, @by,
           @prev_hash, @hash)`,
      ),
      loadState: db.prepare<[string, string, string], { state: string }>(
        'SELECT state FROM rule_state WHERE site_id = ? AND rule = ? AND device_id = ?',
      ),
      saveState: db.prepare(
        `INSERT INTO rule_state (site_id, rule, device_id, state, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (site_id, rule, device_id) DO UPDATE SET state = excluded.state,
           updated_at = excluded.updated_at`,
      ),
      insertTimer: db.prepare(
        'INSERT INTO timers (alert_id, kind, hours, due_at, fire_at) VALUES (?, ?, ?, ?, ?)',
      ),
      deletePendingTimers: db.prepare('DELETE FROM timers WHERE alert_id = ? AND fired_at IS NULL'),
      dueTimers: db.prepare<[number], TimerRow>(
        `SELECT * FROM timers WHERE fired_at IS NULL AND fire_at <= ? AND kind = 'reminder'
         ORDER BY alert_id, fire_at`,
      ),
      markTimer: db.prepare('UPDATE timers SET fired_at = ?, outcome = ? WHERE id = ?'),
      markOverdueTimers: db.prepare(
        `UPDATE timers SET fired_at = ?, outcome = 'sent' WHERE alert_id = ? AND kind = 'overdue'
           AND fired_at IS NULL`,
      ),
      retireOverdueTimers: db.prepare(
        `UPDATE timers SET fired_at = ?, outcome = 'cancelled'
         WHERE fired_at IS NULL AND kind = 'overdue' AND fire_at <= ?`,
      ),
      nextTimer: db.prepare<[], { t: number | null }>(
        'SELECT MIN(fire_at) AS t FROM timers WHERE fired_at IS NULL',
      ),
      openCounts: db.prepare<[], { rule: string; status: string; n: number }>(
        `SELECT rule, status, COUNT(*) AS n FROM alerts WHERE status != 'resolved' GROUP BY rule, status`,
      ),
    };
  }

  alertById(id: string): AlertRow | undefined {
    return this.stmts.alertById.get(id);
  }

  alertByKey(siteId: string, key: string): AlertRow | undefined {
    return this.stmts.alertByKey.get(siteId, key);
  }

  insertAlert(a: NewAlert): void {
    this.stmts.insertAlert.run(a);
  }

  updateContent(p: {
    id: string;
    dueAt: number | null;
    originalDueAt: number | null;
    message: string;
    evidence: string;
    overdueNotified: number;
    now: number;
  }): void {
    this.stmts.updateContent.run(p);
  }

  acknowledge(id: string, actor: string, now: number): void {
    this.stmts.acknowledge.run({ id, actor, now });
  }

  resolve(p: {
    id: string;
    resolvedAt: number;
    how: 'auto' | 'manual';
    by: string;
    message: string | null;
    evidence: string;
    withinDeadline: number | null;
    now: number;
  }): void {
    this.stmts.resolve.run(p);
  }

  setDue(id: string, dueAt: number, now: number): void {
    this.stmts.extend.run({ id, dueAt, now });
  }

  setOverdue(id: string, now: number): void {
    this.stmts.setOverdue.run(now, id);
    this.stmts.markOverdueTimers.run(now, id);
  }

  setReminders(id: string, json: string, now: number): void {
    this.stmts.setReminders.run(json, now, id);
  }

  overdueCandidates(now: number): AlertRow[] {
    return this.stmts.overdueCandidates.all(now);
  }

  /** Open alerts of these rules at a site raised at or before `at`: the duties an inspection then meets. */
  openAlertsBegunBy(siteId: string, rules: readonly string[], at: number): AlertRow[] {
    return this.stmts.openAlertsBegunBy.all(siteId, JSON.stringify(rules), at);
  }

  history(alertId: string): HistoryRow[] {
    return this.stmts.historyOf.all(alertId);
  }

  historyOfMany(alertIds: string[]): Map<string, HistoryRow[]> {
    const out = new Map<string, HistoryRow[]>();
    if (alertIds.length === 0) return out;
    for (const h of this.stmts.historyOfMany.all(JSON.stringify(alertIds))) {
      let list = out.get(h.alert_id);
      if (!list) {
        list = [];
        out.set(h.alert_id, list);
      }
      list.push(h);
    }
    return out;
  }

  /** Appends a hash-chained row; call inside a transaction. */
  private appendChained(
    table: ChainedTable,
    row: Record<string, unknown>,
    insert: Database.Statement,
  ): number {
    const head = this.chains[table].head();
    const seq = (head?.seq ?? 0) + 1;
    const prev = head?.hash ?? GENESIS_HASH;
    const full: Record<string, unknown> = { ...row, seq };
    for (const c of CHAINED_TABLES[table]) if (full[c] === undefined) full[c] = null;
    insert.run({ ...full, prev_hash: prev, hash: chainHash(table, prev, full) });
    return seq;
  }

  appendHistory(h: {
    alertId: string;
    at: number;
    sourceAt: number | null;
    actor: string;
    action: HistoryAction;
    detail: Record<string, unknown>;
  }): number {
    return this.appendChained(
      'alert_history',
      {
        alert_id: h.alertId,
        at: h.at,
        source_at: h.sourceAt,
        actor: h.actor,
        action: h.action,
        detail: canonicalJson(h.detail),
      },
      this.stmts.insertHistory,
    );
  }

  appendInspection(i: Omit<InspectionRow, 'seq' | 'prev_hash' | 'hash'>): number {
    return this.appendChained('inspections', { ...i }, this.stmts.insertInspection);
  }

  appendExtension(e: Omit<ExtensionRow, 'seq' | 'prev_hash' | 'hash'>): number {
    return this.appendChained('extensions', { ...e }, this.stmts.insertExtension);
  }

  inspectionById(id: string): InspectionRow | undefined {
    return this.stmts.inspectionById.get(id);
  }

  firstCoveringInspection(
    siteId: string,
    notBefore: number,
    kinds: readonly string[],
  ): InspectionRow | undefined {
    return this.stmts.firstCoveringInspection.get(siteId, notBefore, JSON.stringify(kinds));
  }

  upsertStorm(e: StormEvent, now: number): void {
    this.stmts.upsertStorm.run({
      id: e.id,
      siteId: e.siteId,
      deviceId: e.deviceId,
      start: e.start,
      end: e.end,
      tips: e.tips,
      inches: e.inches,
      qualified: e.qualified ? 1 : 0,
      thresholdAt: e.thresholdAt ?? null,
      dueAt: e.dueAt ?? null,
      closed: e.closed ? 1 : 0,
      supersededBy: e.supersededBy ?? null,
      now,
    });
  }

  stormById(id: string): StormRow | undefined {
    return this.stmts.stormById.get(id);
  }

  loadState(siteId: string, rule: string, deviceId: string): string | undefined {
    return this.stmts.loadState.get(siteId, rule, deviceId)?.state;
  }

  saveState(siteId: string, rule: string, deviceId: string, state: string, now: number): void {
    this.stmts.saveState.run(siteId, rule, deviceId, state, now);
  }

  /** Replaces the alert's pending timers with a reminder per `reminderHours` still ahead of `now`, and an overdue timer. */
  armTimers(alertId: string, dueAt: number | null, reminderHours: readonly number[], now: number): number {
    this.stmts.deletePendingTimers.run(alertId);
    if (dueAt === null) return Number.POSITIVE_INFINITY;
    let earliest = dueAt;
    for (const h of reminderHours) {
      const fireAt = dueAt - h * 3_600_000;
      if (fireAt <= now) continue;
      this.stmts.insertTimer.run(alertId, 'reminder', h, dueAt, fireAt);
      earliest = Math.min(earliest, fireAt);
    }
    // Overdue means strictly past the due time.
    this.stmts.insertTimer.run(alertId, 'overdue', null, dueAt, dueAt + 1);
    return earliest;
  }

  cancelTimers(alertId: string): void {
    this.stmts.deletePendingTimers.run(alertId);
  }

  dueReminderTimers(now: number): TimerRow[] {
    return this.stmts.dueTimers.all(now);
  }

  markTimer(id: number, firedAt: number, outcome: 'sent' | 'skipped' | 'cancelled'): void {
    this.stmts.markTimer.run(firedAt, outcome, id);
  }

  /** Overdue timers that came due for alerts that are resolved or already flagged: nothing left to fire. */
  retireOverdueTimers(now: number): void {
    this.stmts.retireOverdueTimers.run(now, now);
  }

  nextTimerAt(): number | null {
    return this.stmts.nextTimer.get()?.t ?? null;
  }

  openCounts(): Array<{ rule: string; status: string; n: number }> {
    return this.stmts.openCounts.all();
  }

  queryAlerts(q: AlertQuery, now: number): AlertRow[] {
    const status = q.status === undefined ? undefined : Array.isArray(q.status) ? q.status : [q.status];
    const w = where([
      ['site_id = ?', q.siteId],
      [`status IN (${(status ?? []).map(() => '?').join(', ')})`, status],
      ['rule = ?', q.rule],
      [`status != 'resolved' AND due_at IS NOT NULL AND due_at < ?`, q.overdue === true ? now : undefined],
      [`(status = 'resolved' OR due_at IS NULL OR due_at >= ?)`, q.overdue === false ? now : undefined],
      ['raised_at >= ?', q.from],
      ['raised_at <= ?', q.to],
    ]);
    const limit = Math.max(1, Math.min(q.limit ?? 1000, 10_000));
    const sql = `SELECT * FROM alerts ${w.sql} ORDER BY raised_at DESC, id DESC LIMIT ${limit}`;
    return this.db.prepare<unknown[], AlertRow>(sql).all(...w.params);
  }

  queryStorms(q: { siteId?: string; from?: number; to?: number }): StormRow[] {
    const w = where([
      // A storm that late data merged into another, or withdrew, is kept but not listed.
      ['superseded_by IS NULL', []],
      ['site_id = ?', q.siteId],
      ['end >= ?', q.from],
      ['start <= ?', q.to],
    ]);
    return this.db
      .prepare<unknown[], StormRow>(`SELECT * FROM storms ${w.sql} ORDER BY start, id`)
      .all(...w.params);
  }

  queryInspections(q: { siteId?: string; from?: number; to?: number }): InspectionRow[] {
    const w = where([
      ['site_id = ?', q.siteId],
      ['at >= ?', q.from],
      ['at <= ?', q.to],
    ]);
    return this.db
      .prepare<unknown[], InspectionRow>(`SELECT * FROM inspections ${w.sql} ORDER BY at, seq`)
      .all(...w.params);
  }

  queryExtensions(q: {
    alertId?: string;
    siteId?: string;
    from?: number;
    to?: number;
  }): Array<ExtensionRow & { site_id: string; rule: RuleId }> {
    const w = where([
      ['e.alert_id = ?', q.alertId],
      ['a.site_id = ?', q.siteId],
      ['e.at >= ?', q.from],
      ['e.at <= ?', q.to],
    ]);
    const sql = `SELECT e.*, a.site_id AS site_id, a.rule AS rule FROM extensions e JOIN alerts a ON a.id = e.alert_id
      ${w.sql} ORDER BY e.seq`;
    return this.db.prepare<unknown[], ExtensionRow & { site_id: string; rule: RuleId }>(sql).all(...w.params);
  }

  chainHead(table: ChainedTable): ChainHead | null {
    return this.chains[table].head();
  }

  /**
   * Recomputes the chain of `table` over seq in [fromSeq, toSeq] and reports the first broken link:
   * a row whose hash does not match its content (altered), whose prev_hash is not the previous
   * row's hash, or a missing seq (removed).
   */
  verifyChain(
    fromSeq = 1,
    toSeq = Number.MAX_SAFE_INTEGER,
    table: ChainedTable = 'alert_history',
  ): ChainCheck {
    return this.chains[table].verify(fromSeq, toSeq);
  }
}
