/**
 * Deadlines: the reminders before an alert's due time and its escalation once overdue, each once,
 * recorded in the store (timers and flags), so a restart neither loses nor repeats one.
 */
import { toIso } from '../../../shared/src/time.ts';
import type { EngineMetrics } from './metrics.ts';
import type { AlertStores } from './stores/index.ts';
import type { AlertRow, TimerRow } from './types.ts';
import type { Unit, UnitOfWork } from './unit.ts';

export class Deadlines {
  constructor(
    private readonly stores: AlertStores,
    private readonly unit: UnitOfWork,
    private readonly m: EngineMetrics,
  ) {}

  /** Sends the reminders that came due; returns how many went out. */
  fireReminders(u: Unit): number {
    const { alerts, timers } = this.stores;
    const byAlert = new Map<string, TimerRow[]>();
    for (const t of timers.dueReminders(u.now)) {
      const list = byAlert.get(t.alert_id) ?? [];
      list.push(t);
      byAlert.set(t.alert_id, list);
    }
    let sent = 0;
    for (const [alertId, due] of byAlert) {
      const row = alerts.byId(alertId);
      if (!row || row.status === 'resolved' || row.due_at === null) {
        for (const t of due) timers.mark(t.id, u.now, 'cancelled');
        continue;
      }
      const live = due.filter((t) => t.due_at === row.due_at);
      for (const t of due) if (t.due_at !== row.due_at) timers.mark(t.id, u.now, 'cancelled');
      if (live.length === 0) continue;
      if (row.due_at <= u.now) {
        for (const t of live) timers.mark(t.id, u.now, 'skipped');
        continue;
      }
      // Several reminders came due at once (the gateway was down): only the one closest to the deadline goes out.
      live.sort((a, b) => (a.hours ?? 0) - (b.hours ?? 0));
      const [send, ...skip] = live;
      for (const t of skip) timers.mark(t.id, u.now, 'skipped');
      timers.mark(send!.id, u.now, 'sent');
      const hours = send!.hours ?? 0;
      const list = JSON.parse(row.reminders_sent) as unknown[];
      list.push({ hours, dueAt: toIso(row.due_at), at: toIso(u.now) });
      alerts.setReminders(row.id, JSON.stringify(list), u.now);
      const seq = this.unit.history(u, {
        alertId: row.id,
        at: u.now,
        sourceAt: null,
        actor: 'system',
        action: 'reminder',
        detail: { hours, dueAt: toIso(row.due_at) },
      });
      this.m.reminders.inc({ rule: row.rule });
      this.unit.changed(u, row.id, 'reminder', seq, 'reminder');
      sent++;
    }
    return sent;
  }

  /** Flags every alert past its due time as overdue, once each; returns how many. */
  escalate(u: Unit): number {
    let overdue = 0;
    for (const row of this.stores.alerts.overdueCandidates(u.now)) {
      this.fireOverdue(u, row);
      overdue++;
    }
    this.stores.timers.retireOverdue(u.now);
    return overdue;
  }

  private fireOverdue(u: Unit, row: AlertRow): void {
    this.unit.flushUpdate(u, row.id);
    this.stores.alerts.setOverdue(row.id, u.now);
    this.stores.timers.markOverdue(row.id, u.now);
    const seq = this.unit.history(u, {
      alertId: row.id,
      at: u.now,
      sourceAt: null,
      actor: 'system',
      action: 'overdue',
      detail: { dueAt: toIso(row.due_at!) },
    });
    this.m.overdue.inc({ rule: row.rule });
    this.unit.changed(u, row.id, 'overdue', seq, 'overdue');
  }
}
