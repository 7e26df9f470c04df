/**
 * The alert lifecycle: raise, update, acknowledge, resolve and extend, each with its history entry,
 * its timers and its notification, inside a unit of work. Who may do what, and when, is checked by the
 * callers (the effects of the evaluators, and people's commands).
 */

import type { ResolutionCause } from '../../../shared/src/api/resolutionCause.ts';
import { toIso } from '../../../shared/src/time.ts';
import { canonicalJson } from '../ledger/canonical.ts';
import type { RuleId, SiteRule } from '../rules/index.ts';
import type { Effect, Evidence } from '../rules/types.ts';
import type { EngineMetrics } from './metrics.ts';
import type { AlertStores } from './stores/index.ts';
import type { AlertRow, ExtensionInput } from './types.ts';
import { ulid } from './ulid.ts';
import type { AlertContent, Unit, UnitOfWork } from './unit.ts';

export type OpenEffect = Extract<Effect<RuleId>, { type: 'open' }>;

/** A change of an unresolved alert's content; `at` is its source time. */
export interface AlertPatch {
  at: number;
  dueAt?: number | undefined;
  message?: string | undefined;
  evidence?: Evidence | undefined;
}

export interface Resolution {
  how: 'auto' | 'manual';
  by: string;
  at: number;
  sourceAt?: number;
  message?: string;
  evidence: Evidence;
  /** What closed it (an inspection, a notice's approval, the readings, ...). */
  cause?: ResolutionCause;
}

export class Lifecycle {
  constructor(
    private readonly stores: AlertStores,
    private readonly unit: UnitOfWork,
    private readonly m: EngineMetrics,
    private readonly reminderHours: readonly number[],
  ) {}

  /** Raises a new alert for an `open` effect of a bound rule. */
  raise(u: Unit, rule: SiteRule, e: OpenEffect): void {
    const id = ulid(u.now);
    const dueAt = e.dueAt ?? null;
    this.stores.alerts.insert({
      id,
      key: e.key,
      rule: e.rule,
      siteId: rule.siteId,
      deviceId: e.deviceId ?? rule.deviceId ?? null,
      raisedAt: e.at,
      dueAt,
      message: e.message,
      evidence: canonicalJson(e.evidence ?? {}),
      now: u.now,
    });
    const detail: Evidence = { message: e.message, evidence: e.evidence ?? {} };
    if (dueAt !== null) detail.dueAt = toIso(dueAt);
    const seq = this.unit.history(u, {
      alertId: id,
      at: u.now,
      sourceAt: e.at,
      actor: 'system',
      action: 'raised',
      detail,
    });
    u.armed(this.stores.timers.arm(id, dueAt, this.reminderHours, u.now));
    this.m.raised.inc({ rule: e.rule });
    this.unit.changed(u, id, 'raised', seq, 'raise');
  }

  /** Changes due time, message or evidence of an unresolved alert; a no-op change writes nothing. */
  update(u: Unit, row: AlertRow, patch: AlertPatch): void {
    if (row.status === 'resolved') {
      this.m.ignored.inc({ type: 'update', reason: 'resolved' });
      return;
    }
    const extended = row.due_at !== null && row.original_due_at !== null && row.due_at > row.original_due_at;
    let dueAt = row.due_at;
    let originalDueAt = row.original_due_at;
    if (patch.dueAt !== undefined) {
      originalDueAt = patch.dueAt;
      dueAt = extended ? Math.max(row.due_at!, patch.dueAt) : patch.dueAt;
    }
    const message = patch.message ?? row.message;
    const evidence = patch.evidence
      ? canonicalJson({ ...(JSON.parse(row.evidence) as Evidence), ...patch.evidence })
      : row.evidence;
    const dueChanged = dueAt !== row.due_at;
    if (
      !dueChanged &&
      originalDueAt === row.original_due_at &&
      message === row.message &&
      evidence === row.evidence
    )
      return;
    const overdueNotified = dueChanged && dueAt !== null && dueAt >= u.now ? 0 : row.overdue_notified;
    this.stores.alerts.updateContent({
      id: row.id,
      dueAt,
      originalDueAt,
      message,
      evidence,
      overdueNotified,
      now: u.now,
    });
    // The history row, the timers and the live event follow once per transaction (UnitOfWork.flushUpdate).
    const after: AlertContent = { dueAt, originalDueAt, message, evidence };
    this.unit.recordUpdate(u, row, after, {
      extended,
      dueChanged,
      evidence: patch.evidence,
      sourceAt: patch.at,
    });
  }

  resolve(u: Unit, row: AlertRow, r: Resolution): void {
    // The updates before it come first in the history, and their timers are cancelled with the rest.
    this.unit.flushUpdate(u, row.id);
    // A duty superseded by the record (or by late data) was neither met nor missed: no deadline outcome.
    const superseded = r.evidence.superseded === true;
    const within = row.due_at === null || superseded ? null : r.at <= row.due_at ? 1 : 0;
    this.stores.alerts.resolve({
      id: row.id,
      resolvedAt: r.at,
      how: r.how,
      by: r.by,
      message: r.message ?? null,
      evidence: canonicalJson(r.evidence),
      cause: r.cause ? canonicalJson(r.cause) : null,
      withinDeadline: within,
      now: u.now,
    });
    this.stores.timers.cancel(row.id);
    const detail: Evidence = { how: r.how, resolvedAt: toIso(r.at), evidence: r.evidence };
    if (r.message !== undefined) detail.message = r.message;
    if (r.cause) detail.cause = r.cause;
    if (within !== null) detail.withinDeadline = within === 1;
    const seq = this.unit.history(u, {
      alertId: row.id,
      at: u.now,
      sourceAt: r.sourceAt ?? null,
      actor: r.by,
      action: 'resolved',
      detail,
    });
    this.m.resolved.inc({ rule: row.rule, how: r.how });
    this.unit.changed(u, row.id, 'resolved', seq, 'resolve');
  }

  acknowledge(u: Unit, row: AlertRow, actor: string, note?: string): void {
    this.stores.alerts.acknowledge(row.id, actor, u.now);
    const detail: Evidence = {};
    if (note !== undefined && note.trim() !== '') detail.note = note.trim();
    const seq = this.unit.history(u, {
      alertId: row.id,
      at: u.now,
      sourceAt: null,
      actor,
      action: 'acknowledged',
      detail,
    });
    this.unit.changed(u, row.id, 'acknowledged', seq);
  }

  /** Records an engineer's extension letter: moves the due time later, keeps the old one in history. */
  extend(u: Unit, row: AlertRow & { due_at: number }, actor: string, ext: ExtensionInput): void {
    const note = ext.note?.trim() ? ext.note.trim() : null;
    const extSeq = this.stores.extensions.append({
      alert_id: row.id,
      old_due: row.due_at,
      new_due: ext.newDueAt,
      engineer: ext.engineer.trim(),
      letter_ref: ext.letterRef.trim(),
      note,
      at: u.now,
      by: actor,
    });
    this.stores.alerts.setDue(row.id, ext.newDueAt, u.now);
    u.armed(this.stores.timers.arm(row.id, ext.newDueAt, this.reminderHours, u.now));
    const detail: Evidence = {
      oldDueAt: toIso(row.due_at),
      newDueAt: toIso(ext.newDueAt),
      engineer: ext.engineer.trim(),
      letterRef: ext.letterRef.trim(),
      extensionSeq: extSeq,
    };
    if (row.original_due_at !== null) detail.originalDueAt = toIso(row.original_due_at);
    if (note !== null) detail.note = note;
    const seq = this.unit.history(u, {
      alertId: row.id,
      at: u.now,
      sourceAt: null,
      actor,
      action: 'extended',
      detail,
    });
    this.unit.changed(u, row.id, 'extended', seq, 'extension');
  }
}
