/**
 * The unit of work: every change runs in one SQLite transaction together with the evaluators' new
 * state, its history rows and its notification events (the outbox the dispatcher drains). Memory (the
 * state cache) and live listeners see it only after the commit. Within one transaction, the updates to
 * an alert become one `updated` history row (the due time before them, the content after) and one live
 * event; each changed alert's DTO, for live events and notification payloads, is built once, as the
 * transaction leaves it, its history read only by what reads it (so a transaction costs the same however
 * long the history of the alert it changes).
 */

import type {
  AlertDto,
  HistoryAction,
  InspectionDto,
  NotificationKind,
} from '../../../shared/src/api/alerts.ts';
import { toIso } from '../../../shared/src/time.ts';
import type { Log } from '../pipeline.ts';
import type { Evidence, StormEvent } from '../rules/types.ts';
import type { EvidenceLog } from '../store/evidenceLog.ts';
import { recordInspectionReportEvent, recordNotificationEvent } from '../store/outbox.ts';
import { AlertError } from './errors.ts';
import { alertDto } from './mapping.ts';
import type { RuleStates, StagedStates } from './ruleStates.ts';
import type { AlertStores } from './stores/index.ts';
import type { AlertEvent, AlertRow, Db, HistoryInput } from './types.ts';

/** A live alert event whose DTO is built once per alert at the end of the transaction. */
interface AlertEventRef {
  type: 'alert';
  action: HistoryAction;
  alertId: string;
}

type QueuedEvent = Exclude<AlertEvent, { type: 'alert' }> | AlertEventRef;

/** An alert's content as the `updated` history row compares it. */
export interface AlertContent {
  dueAt: number | null;
  originalDueAt: number | null;
  message: string;
  evidence: string;
}

/**
 * The updates to one alert within a transaction, folded into one `updated` history row: written
 * before any other history row of that alert, or when the transaction ends.
 */
interface PendingUpdate {
  before: AlertContent;
  after: AlertContent;
  /** Whether an engineer's extension had moved the due time when the first update came. */
  extended: boolean;
  /** Whether any of the updates moved the due time (the timers are re-armed for the final one). */
  dueChanged: boolean;
  /** The evidence the updates brought, merged in order. */
  evidence: Evidence | undefined;
  /** Source time of the last update. */
  sourceAt: number;
}

/** The changes of one transaction, applied to memory only once it commits. */
export class Unit {
  readonly staged: StagedStates = new Map();
  readonly events: QueuedEvent[] = [];
  /** Coalesced updates not yet written to the history, by alert id. */
  readonly pending = new Map<string, PendingUpdate>();
  /** Alerts whose DTO is needed (live events, notification payloads, a caller's result). */
  readonly touched = new Set<string>();
  /** Notification events to record, in order, with the DTOs built at the end of the transaction. */
  readonly outbox: Array<{ alertId: string; kind: NotificationKind; seq: number }> = [];
  readonly dtos = new Map<string, AlertDto>();
  /** Inspections whose report goes to the officer (the outbox's `inspection-report` events). */
  readonly reports: InspectionDto[] = [];
  /** Storm records changed in this unit, by id: only each one's last version is written and logged. */
  readonly storms = new Map<string, StormEvent>();
  /** Alerts resolved in this unit, in order (by the engine or by a rule's own effect). */
  readonly resolved: string[] = [];
  earliestTimer = Number.POSITIVE_INFINITY;
  effects = 0;
  notified = 0;

  /**
   * `now`: the unit's time (its history rows', its timers'); a slice of readings takes the time of its
   * commit (`at`). `live`: someone listens to the changes, so live events are queued.
   */
  constructor(
    public now: number,
    readonly live: boolean,
  ) {}

  /** A unit begun earlier (a slice of readings) committed now: its rows and timers carry this time. */
  at(now: number): void {
    this.now = Math.max(this.now, now);
  }

  /** Timers were armed (or an evaluator waits) for `at`: the scheduler wakes for the earliest after the commit. */
  armed(at: number): void {
    this.earliestTimer = Math.min(this.earliestTimer, at);
  }
}

export interface UnitOptions {
  db: Db;
  /** The evidence log the stores append to; its in-memory edge is read again after a rollback. */
  evidence: EvidenceLog;
  stores: AlertStores;
  states: RuleStates;
  reminderHours: readonly number[];
  log: Log;
  /** The engine's change listeners, told of each committed change (events are gathered only while there are some). */
  listeners: ReadonlySet<(event: AlertEvent) => void>;
  /** The engine's notification listeners, told after a commit that wrote notification events. */
  notifyListeners: ReadonlySet<() => void>;
  /** Called after every commit with the earliest timer it armed (infinity for none). */
  onTimers?: (earliest: number) => void;
  /** Runs first at the end of each unit, inside its transaction (the rules write their storm records). */
  beforeFinish?: (u: Unit) => void;
  /** Runs before every unit's transaction (the engine commits its open slice of readings first). */
  beforeRun?: () => void;
}

/** Runs units of work: their transaction, their history rows and events, and what follows the commit. */
export class UnitOfWork {
  constructor(private readonly o: UnitOptions) {}

  begin(now: number): Unit {
    return new Unit(now, this.o.listeners.size > 0);
  }

  /** Runs `fn` in one transaction with the evaluators' state; memory and listeners see it only after commit. */
  run<T>(now: number, fn: (u: Unit) => T, u: Unit = this.begin(now)): T {
    this.o.beforeRun?.();
    let result: T;
    try {
      result = this.o.db.transaction(() => {
        const r = fn(u);
        this.finish(u);
        return r;
      })();
    } catch (e) {
      this.o.evidence.resync();
      throw e;
    }
    this.afterCommit(u);
    return result;
  }

  /** Like `run`, for a change to one alert: returns that alert's DTO as committed. */
  runForAlert(now: number, alertId: string, fn: (u: Unit) => void): AlertDto {
    const u = this.begin(now);
    this.run(
      now,
      (unit) => {
        fn(unit);
        unit.touched.add(alertId);
      },
      u,
    );
    return u.dtos.get(alertId)!;
  }

  /** Appends a history row for an alert, after the updates to it still pending in this transaction. */
  history(u: Unit, h: HistoryInput): number {
    this.flushUpdate(u, h.alertId);
    return this.o.stores.history.append(h);
  }

  /**
   * After a change: queues the notification event and the live event. Both get the alert's DTO as the
   * transaction leaves it, built once per alert (finish); the notification event is recorded in the
   * same transaction.
   */
  changed(u: Unit, alertId: string, action: HistoryAction, seq: number, notify?: NotificationKind): void {
    if (action === 'resolved') u.resolved.push(alertId);
    if (notify) {
      u.outbox.push({ alertId, kind: notify, seq });
      u.notified++;
      u.touched.add(alertId);
    }
    if (u.live) {
      u.events.push({ type: 'alert', action, alertId });
      u.touched.add(alertId);
    }
  }

  /**
   * Records an update of an alert's content (already written to its row) for the one `updated` history
   * row of this transaction; the first update of the alert queues its live event.
   */
  recordUpdate(
    u: Unit,
    row: AlertRow,
    after: AlertContent,
    change: { extended: boolean; dueChanged: boolean; evidence: Evidence | undefined; sourceAt: number },
  ): void {
    const pending = u.pending.get(row.id);
    if (pending) {
      pending.after = after;
      pending.sourceAt = change.sourceAt;
      if (change.dueChanged) pending.dueChanged = true;
      if (change.evidence) pending.evidence = { ...pending.evidence, ...change.evidence };
      return;
    }
    u.pending.set(row.id, {
      before: {
        dueAt: row.due_at,
        originalDueAt: row.original_due_at,
        message: row.message,
        evidence: row.evidence,
      },
      after,
      extended: change.extended,
      dueChanged: change.dueChanged,
      evidence: change.evidence ? { ...change.evidence } : undefined,
      sourceAt: change.sourceAt,
    });
    if (u.live) u.events.push({ type: 'alert', action: 'updated', alertId: row.id });
  }

  /** Writes the coalesced updates still pending in this transaction. */
  flushUpdates(u: Unit): void {
    for (const id of [...u.pending.keys()]) this.flushUpdate(u, id);
  }

  /**
   * Writes the one `updated` history row for the updates to an alert since its last history row in
   * this transaction (old due time before them, the final content after), and re-arms its timers for
   * the final due time.
   */
  flushUpdate(u: Unit, alertId: string): void {
    const p = u.pending.get(alertId);
    if (!p) return;
    u.pending.delete(alertId);
    const { before, after } = p;
    const detail: Evidence = {};
    if (p.dueChanged) {
      detail.oldDueAt = before.dueAt === null ? null : toIso(before.dueAt);
      detail.dueAt = after.dueAt === null ? null : toIso(after.dueAt);
    }
    if (after.originalDueAt !== before.originalDueAt && p.extended)
      detail.originalDueAt = after.originalDueAt === null ? null : toIso(after.originalDueAt);
    if (after.message !== before.message) detail.message = after.message;
    if (after.evidence !== before.evidence && p.evidence) detail.evidence = p.evidence;
    this.o.stores.history.append({
      alertId,
      at: u.now,
      sourceAt: p.sourceAt,
      actor: 'system',
      action: 'updated',
      detail,
    });
    if (p.dueChanged) u.armed(this.o.stores.timers.arm(alertId, after.dueAt, this.o.reminderHours, u.now));
    // The live event was queued with the first update, in order among the transaction's events.
    if (u.live) u.touched.add(alertId);
  }

  /**
   * The end of a transaction: writes the coalesced updates, builds each changed alert's DTO once,
   * records the notification events with it, and saves the evaluators' state.
   */
  private finish(u: Unit): void {
    const { stores, db } = this.o;
    this.o.beforeFinish?.(u);
    this.flushUpdates(u);
    // Each DTO's history is read only when something reads it (a notification's payload, a subscriber of
    // the live feed, a command's answer), as it is at the end of this transaction: up to its last entry.
    const headSeq = stores.logged.lastSeq('alert_history');
    for (const id of u.touched) {
      const row = stores.alerts.byId(id);
      if (!row) throw new AlertError('NOT_FOUND', `no alert "${id}"`);
      u.dtos.set(
        id,
        alertDto(row, () => stores.history.upTo(id, headSeq), u.now),
      );
    }
    for (const inspection of u.reports) recordInspectionReportEvent(db, { inspection, createdAt: u.now });
    for (const n of u.outbox)
      recordNotificationEvent(db, {
        eventId: `${n.alertId}:${n.kind}:${n.seq}`,
        kind: n.kind,
        alert: u.dtos.get(n.alertId)!,
        createdAt: u.now,
      });
    this.o.states.save(u.staged, u.now);
  }

  private afterCommit(u: Unit): void {
    const { listeners, notifyListeners, log } = this.o;
    this.o.states.commit(u.staged);
    for (const q of listeners.size > 0 ? u.events : []) {
      const e: AlertEvent =
        q.type === 'alert' ? { type: 'alert', action: q.action, alert: u.dtos.get(q.alertId)! } : q;
      for (const listener of listeners)
        try {
          listener(e);
        } catch (err) {
          log.error({ err: String(err) }, 'alert change listener failed');
        }
    }
    for (const listener of u.notified > 0 ? notifyListeners : [])
      try {
        listener();
      } catch (err) {
        log.error({ err: String(err) }, 'notification hook failed; the dispatcher will find the events');
      }
    this.o.onTimers?.(u.earliestTimer);
  }
}
