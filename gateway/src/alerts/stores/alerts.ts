/** The alerts table: one row per occurrence key and site, its content, status and deadline flags. */
import { pageSql, sitesIn } from '../../store/page.ts';
import { OPEN_END, type ReadingWindow } from '../../store/readingWindows.ts';
import { where } from '../../store/where.ts';
import type { AlertQuery, AlertRow, Db, NewAlert } from '../types.ts';

/**
 * The readings behind an alert, open or closed, are kept with it (`store/readingWindows.ts`): its
 * device's (every device of the site for a site's alert), from a day before it was raised (what raised
 * it) until it was resolved, or for as long as it is not.
 */
export const ALERT_READINGS: ReadingWindow = {
  name: 'alerts',
  sql: `SELECT site_id, device_id, raised_at - 86400000 AS start,
      COALESCE(resolved_at, ${String(OPEN_END)}) AS end FROM alerts`,
};

export class AlertStore {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      byId: db.prepare<[string], AlertRow>('SELECT * FROM alerts WHERE id = ?'),
      byKey: db.prepare<[string, string], AlertRow>('SELECT * FROM alerts WHERE site_id = ? AND key = ?'),
      insert: db.prepare(
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
           resolution_message = @message, resolution_evidence = @evidence, resolution_cause = @cause, within_deadline = @withinDeadline,
           updated_at = @now WHERE id = @id`,
      ),
      setDue: db.prepare(
        'UPDATE alerts SET due_at = @dueAt, overdue_notified = 0, updated_at = @now WHERE id = @id',
      ),
      setOverdue: db.prepare('UPDATE alerts SET overdue_notified = 1, updated_at = ? WHERE id = ?'),
      setReminders: db.prepare('UPDATE alerts SET reminders_sent = ?, updated_at = ? WHERE id = ?'),
      overdueCandidates: db.prepare<[number], AlertRow>(
        `SELECT * FROM alerts WHERE status != 'resolved' AND overdue_notified = 0 AND due_at < ?
         ORDER BY due_at`,
      ),
      openCounts: db.prepare<[], { rule: string; status: string; n: number }>(
        `SELECT rule, status, COUNT(*) AS n FROM alerts WHERE status != 'resolved' GROUP BY rule, status`,
      ),
    };
  }

  byId(id: string): AlertRow | undefined {
    return this.stmts.byId.get(id);
  }

  byKey(siteId: string, key: string): AlertRow | undefined {
    return this.stmts.byKey.get(siteId, key);
  }

  insert(a: NewAlert): void {
    this.stmts.insert.run(a);
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
    /** What closed it, as canonical JSON, or null. */
    cause: string | null;
    withinDeadline: number | null;
    now: number;
  }): void {
    this.stmts.resolve.run(p);
  }

  /** Moves the due time (an extension) and clears the overdue flag. */
  setDue(id: string, dueAt: number, now: number): void {
    this.stmts.setDue.run({ id, dueAt, now });
  }

  setOverdue(id: string, now: number): void {
    this.stmts.setOverdue.run(now, id);
  }

  setReminders(id: string, json: string, now: number): void {
    this.stmts.setReminders.run(json, now, id);
  }

  /** Unresolved alerts past their due time that were not flagged overdue yet. */
  overdueCandidates(now: number): AlertRow[] {
    return this.stmts.overdueCandidates.all(now);
  }

  openCounts(): Array<{ rule: string; status: string; n: number }> {
    return this.stmts.openCounts.all();
  }

  query(q: AlertQuery, now: number): AlertRow[] {
    const status = q.status === undefined ? undefined : Array.isArray(q.status) ? q.status : [q.status];
    const page = pageSql('raised_at', 'id', q.page, 'raised_at DESC, id DESC');
    const w = where([
      ['site_id = ?', q.siteId],
      sitesIn('site_id', q.siteIds),
      page.cond,
      [`status IN (${(status ?? []).map(() => '?').join(', ')})`, status],
      ['rule = ?', q.rule],
      [`status != 'resolved' AND due_at IS NOT NULL AND due_at < ?`, q.overdue === true ? now : undefined],
      [`(status = 'resolved' OR due_at IS NULL OR due_at >= ?)`, q.overdue === false ? now : undefined],
      ['raised_at >= ?', q.from],
      ['raised_at <= ?', q.to],
    ]);
    const limit = Math.max(1, Math.min(q.limit ?? 1000, 10_000));
    const tail = q.page ? page.tail : `${page.tail} LIMIT ${limit}`;
    const sql = `SELECT * FROM alerts ${w.sql} ${tail}`;
    return this.db.prepare<unknown[], AlertRow>(sql).all(...w.params);
  }
}
