/**
 * Durable timers: a reminder per configured hour before each alert's due time and one overdue timer,
 * so a restart neither loses nor repeats a deadline.
 */
import type { Db, TimerRow } from '../types.ts';

export type TimerOutcome = 'sent' | 'skipped' | 'cancelled';

export class TimerStore {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      insert: db.prepare(
        'INSERT INTO timers (alert_id, kind, hours, due_at, fire_at) VALUES (?, ?, ?, ?, ?)',
      ),
      deletePending: db.prepare('DELETE FROM timers WHERE alert_id = ? AND fired_at IS NULL'),
      dueReminders: db.prepare<[number], TimerRow>(
        `SELECT * FROM timers WHERE fired_at IS NULL AND fire_at <= ? AND kind = 'reminder'
         ORDER BY alert_id, fire_at`,
      ),
      mark: db.prepare('UPDATE timers SET fired_at = ?, outcome = ? WHERE id = ?'),
      markOverdue: db.prepare(
        `UPDATE timers SET fired_at = ?, outcome = 'sent' WHERE alert_id = ? AND kind = 'overdue'
           AND fired_at IS NULL`,
      ),
      retireOverdue: db.prepare(
        `UPDATE timers SET fired_at = ?, outcome = 'cancelled'
         WHERE fired_at IS NULL AND kind = 'overdue' AND fire_at <= ?`,
      ),
      next: db.prepare<[], { t: number | null }>(
        'SELECT MIN(fire_at) AS t FROM timers WHERE fired_at IS NULL',
      ),
    };
  }

  /**
   * Replaces the alert's pending timers with a reminder per `reminderHours` still ahead of `now`, and an
   * overdue timer; returns the earliest fire time (infinity without a due time).
   */
  arm(alertId: string, dueAt: number | null, reminderHours: readonly number[], now: number): number {
    this.stmts.deletePending.run(alertId);
    if (dueAt === null) return Number.POSITIVE_INFINITY;
    let earliest = dueAt;
    for (const h of reminderHours) {
      const fireAt = dueAt - h * 3_600_000;
      if (fireAt <= now) continue;
      this.stmts.insert.run(alertId, 'reminder', h, dueAt, fireAt);
      earliest = Math.min(earliest, fireAt);
    }
    // Overdue means strictly past the due time.
    this.stmts.insert.run(alertId, 'overdue', null, dueAt, dueAt + 1);
    return earliest;
  }

  cancel(alertId: string): void {
    this.stmts.deletePending.run(alertId);
  }

  dueReminders(now: number): TimerRow[] {
    return this.stmts.dueReminders.all(now);
  }

  mark(id: number, firedAt: number, outcome: TimerOutcome): void {
    this.stmts.mark.run(firedAt, outcome, id);
  }

  /** The alert's overdue timer fired (its escalation was sent). */
  markOverdue(alertId: string, now: number): void {
    this.stmts.markOverdue.run(now, alertId);
  }

  /** Overdue timers that came due for alerts that are resolved or already flagged: nothing left to fire. */
  retireOverdue(now: number): void {
    this.stmts.retireOverdue.run(now, now);
  }

  nextAt(): number | null {
    return this.stmts.next.get()?.t ?? null;
  }
}
