/**
 * The deadline engine: feeds readings, clock ticks and people's actions to the pure rule evaluators,
 * turns their effects into alert lifecycle changes in the store, and keeps deadlines (reminders,
 * overdue escalation) in the store so a restart neither loses nor repeats one.
 *
 * Every change runs in one SQLite transaction together with the evaluators' new state, its history
 * rows and its notification events (the outbox the dispatcher drains). Within one transaction, the
 * updates to an alert become one `updated` history row (the due time before them, the content after)
 * and one live event; each changed alert's DTO, for live events and notification payloads, is built
 * once, as the transaction leaves it.
 */
import cron, { type ScheduledTask } from 'node-cron';
import type { Reading } from '../../../shared/src/telemetry.ts';
import type { Config, SiteConfig } from '../config/schema.ts';
import type { Counter, Histogram, Registry } from '../metrics.ts';
import type { Log } from '../pipeline.ts';
import { meetsStormInspection, type RuleId, rulesClosedByInspection, type SiteRule } from '../rules/index.ts';
import type { Effect, Evidence, RuleContext, RuleInput } from '../rules/types.ts';
import {
  type AlertQuery,
  type AlertRow,
  AlertStore,
  type ChainedTable,
  canonicalJson,
  type Db,
  type ExtensionRow,
  type HistoryRow,
  type InspectionRow,
  type StormRow,
  type TimerRow,
  ulid,
} from './alertStore.ts';
import {
  type AlertDto,
  type AlertHistoryEntry,
  type ChainCheck,
  type ExtensionDto,
  type HistoryAction,
  INSPECTION_KINDS,
  type InspectionDto,
  type InspectionKind,
  type StormDto,
  toIso,
} from './dto.ts';
import { AlertError } from './errors.ts';
import { type NotificationKind, recordNotificationEvent } from './notify/store.ts';

/** What the engine reports to live listeners (server-sent events), after the change is committed. */
export type AlertEvent =
  | { type: 'alert'; action: HistoryAction; alert: AlertDto }
  | { type: 'storm'; storm: StormDto }
  | { type: 'inspection'; inspection: InspectionDto };

export interface ComplianceEngineOptions {
  db: Db;
  config: Config;
  /** The rules bound to a site (the registry's: `evaluatorsFor` of rules/index.ts). */
  evaluatorsFor: (site: SiteConfig) => SiteRule[];
  now: () => number;
  log: Log;
  metrics: Registry;
  onChange?: (event: AlertEvent) => void;
  /** Called after a commit that wrote notification events (e.g. the dispatcher's notify()). */
  onNotify?: () => void;
  /** Longest wait between two scheduled ticks (default 60 s); a pending reminder or deadline wakes it sooner. */
  tickIntervalMs?: number;
}

export interface InspectionInput {
  siteId: string;
  /** When the inspection took place, epoch ms. */
  at: number;
  inspector: string;
  kind: InspectionKind;
  notes?: string;
}

export interface ExtensionInput {
  newDueAt: number;
  engineer: string;
  letterRef: string;
  note?: string;
}

export interface TickResult {
  effects: number;
  reminders: number;
  overdue: number;
}

interface SiteIndex {
  site: SiteConfig;
  ctx: RuleContext;
  all: SiteRule[];
  byDevice: Map<string, SiteRule[]>;
}

/** The key of a binding's state in the cache and in a transaction. */
function stateKey(r: SiteRule): string {
  return `${r.siteId}\u0000${r.stateKey}\u0000${r.deviceId ?? ''}`;
}

/** A live alert event whose DTO is built once per alert at the end of the transaction. */
interface AlertEventRef {
  type: 'alert';
  action: HistoryAction;
  alertId: string;
}

type QueuedEvent = Exclude<AlertEvent, { type: 'alert' }> | AlertEventRef;

/** An alert's content as the `updated` history row compares it. */
interface AlertContent {
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
interface Unit {
  now: number;
  staged: Map<string, { inst: SiteRule; state: unknown }>;
  events: QueuedEvent[];
  /** Coalesced updates not yet written to the history, by alert id. */
  pending: Map<string, PendingUpdate>;
  /** Alerts whose DTO is needed (live events, notification payloads, a caller's result). */
  touched: Set<string>;
  /** Notification events to record, in order, with the DTOs built at the end of the transaction. */
  outbox: Array<{ alertId: string; kind: NotificationKind; seq: number }>;
  dtos: Map<string, AlertDto>;
  earliestTimer: number;
  effects: number;
  notified: number;
}

/** Future inspections are refused beyond this clock skew. */
const INSPECTION_FUTURE_SLACK_MS = 5 * 60_000;

export class ComplianceEngine {
  readonly store: AlertStore;
  private readonly db: Db;
  private readonly config: Config;
  private readonly now: () => number;
  private readonly log: Log;
  private readonly onChange: ((event: AlertEvent) => void) | undefined;
  private readonly onNotify: (() => void) | undefined;
  private readonly reminderHours: readonly number[];
  private readonly tickIntervalMs: number;
  private cronTask: ScheduledTask | undefined;
  private readonly sites = new Map<string, SiteIndex>();
  private readonly stateCache = new Map<string, unknown>();
  private timer: NodeJS.Timeout | undefined;
  private wakeAt = Number.POSITIVE_INFINITY;
  private running = false;

  private readonly m: {
    raised: Counter;
    resolved: Counter;
    overdue: Counter;
    reminders: Counter;
    ruleErrors: Counter;
    ignored: Counter;
    unknownSite: Counter;
    batchSeconds: Histogram;
    tickSeconds: Histogram;
  };

  constructor(opts: ComplianceEngineOptions) {
    this.db = opts.db;
    this.config = opts.config;
    this.now = opts.now;
    this.log = opts.log;
    this.onChange = opts.onChange;
    this.onNotify = opts.onNotify;
    this.reminderHours = [...new Set(opts.config.notify.reminderHours)].sort((a, b) => b - a);
    this.tickIntervalMs = opts.tickIntervalMs ?? 60_000;
    this.store = new AlertStore(opts.db);

    const reg = opts.metrics;
    this.m = {
      raised: reg.counter('gateway_alerts_raised_total', 'Alerts raised, by rule'),
      resolved: reg.counter(
        'gateway_alerts_resolved_total',
        'Alerts resolved, by rule and how (auto, manual)',
      ),
      overdue: reg.counter('gateway_alerts_overdue_total', 'Alerts that passed their due time, by rule'),
      reminders: reg.counter('gateway_alert_reminders_total', 'Reminders sent before a due time, by rule'),
      ruleErrors: reg.counter('gateway_rule_errors_total', 'Evaluator calls that threw, by rule'),
      ignored: reg.counter(
        'gateway_rule_effects_ignored_total',
        'Effects that changed nothing (unknown key or resolved alert), by type',
      ),
      unknownSite: reg.counter(
        'gateway_rule_unknown_site_total',
        'Readings for a site not in the configuration',
      ),
      batchSeconds: reg.histogram(
        'gateway_rules_batch_seconds',
        'Time to evaluate and apply one batch of readings',
      ),
      tickSeconds: reg.histogram('gateway_rules_tick_seconds', 'Time of one engine tick'),
    };
    reg.gauge('gateway_alerts_active', 'Unresolved alerts, by rule and status').collect((set) => {
      if (!this.db.open) return;
      for (const r of this.store.openCounts()) set(r.n, { rule: r.rule, status: r.status });
    });

    for (const site of opts.config.sites) {
      const ctx: RuleContext = { site, timezone: site.timezone ?? opts.config.timezone };
      const all = opts.evaluatorsFor(site);
      const seen = new Set<string>();
      for (const r of all) {
        const key = stateKey(r);
        if (seen.has(key))
          throw new Error(
            `two evaluators for ${r.stateKey} on site ${site.id}${r.deviceId ? `/${r.deviceId}` : ''}`,
          );
        seen.add(key);
      }
      this.sites.set(site.id, { site, ctx, all, byDevice: new Map() });
    }
  }

  // ---------------------------------------------------------------- inputs

  /**
   * Evaluates a batch of readings (in source-time order per device) and applies the effects in one
   * transaction. Readings that change nothing cost no SQL beyond the evaluators' state, written once
   * per batch.
   */
  handleReadings(readings: readonly Reading[]): { effects: number } {
    const started = performance.now();
    const u = this.newUnit(this.now());
    const work: Array<{ inst: SiteRule; effects: Effect[] }> = [];
    for (const reading of readings) {
      const idx = this.sites.get(reading.siteId);
      if (!idx) {
        this.m.unknownSite.inc();
        continue;
      }
      const input: RuleInput = { type: 'reading', reading };
      for (const inst of this.instancesFor(idx, reading.deviceId)) {
        const effects = this.evaluate(u, inst, input);
        if (effects.length > 0) work.push({ inst, effects });
      }
    }
    if (work.length > 0 || u.staged.size > 0) {
      this.db.transaction(() => {
        for (const w of work) this.applyEffects(u, w.inst, w.effects);
        this.finish(u);
      })();
      this.afterCommit(u);
    }
    this.m.batchSeconds.observe((performance.now() - started) / 1000);
    return { effects: u.effects };
  }

  /**
   * Sends a clock tick to every evaluator, then fires due reminders and flags alerts past their due
   * time as overdue (each once, recorded in the store).
   */
  tick(now: number = this.now()): TickResult {
    const started = performance.now();
    const result = this.run(now, (u) => {
      const input: RuleInput = { type: 'tick', now };
      for (const idx of this.sites.values())
        for (const inst of idx.all) this.applyEffects(u, inst, this.evaluate(u, inst, input));
      // Reminders and overdue flags follow the timers and due times the updates left.
      this.flushUpdates(u);
      const reminders = this.fireReminders(u);
      let overdue = 0;
      for (const row of this.store.overdueCandidates(now)) {
        this.fireOverdue(u, row);
        overdue++;
      }
      this.store.retireOverdueTimers(now);
      return { effects: u.effects, reminders, overdue };
    });
    this.m.tickSeconds.observe((performance.now() - started) / 1000);
    return result;
  }

  /** Starts the scheduler; the first tick runs at once (catch-up for deadlines passed while down). */
  start(): void {
    if (this.running) return;
    this.running = true;
    // The calendar drives a tick at the top of every minute (annual letters, routine clocks, silent devices);
    // a timer wakes the engine sooner when a reminder or deadline falls before that.
    this.cronTask = cron.schedule(
      '* * * * *',
      () => {
        if (this.running) this.scheduledTick();
      },
      { name: 'compliance-tick', noOverlap: true, unref: true },
    );
    this.scheduledTick();
  }

  stop(): void {
    this.running = false;
    this.cronTask?.destroy();
    this.cronTask = undefined;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.wakeAt = Number.POSITIVE_INFINITY;
  }

  // ---------------------------------------------------------------- people's actions

  acknowledge(id: string, actor: string, note?: string): AlertDto {
    return this.runForAlert(this.now(), id, (u) => {
      const row = this.mustGet(id);
      if (row.status === 'resolved') throw new AlertError('ALREADY_RESOLVED', `alert ${id} is resolved`);
      if (row.status === 'acknowledged')
        throw new AlertError(
          'ALREADY_ACKNOWLEDGED',
          `alert ${id} was acknowledged by ${row.acknowledged_by}`,
        );
      this.store.acknowledge(id, actor, u.now);
      const detail: Evidence = {};
      if (note !== undefined && note.trim() !== '') detail.note = note.trim();
      const seq = this.appendHistory(u, {
        alertId: id,
        at: u.now,
        sourceAt: null,
        actor,
        action: 'acknowledged',
        detail,
      });
      this.changed(u, id, 'acknowledged', seq);
    });
  }

  /** Closes an alert by hand; the note is the evidence. */
  resolve(id: string, actor: string, note: string): AlertDto {
    const text = typeof note === 'string' ? note.trim() : '';
    if (text === '') throw new AlertError('NOTE_REQUIRED', 'a manual resolution needs a note');
    return this.runForAlert(this.now(), id, (u) => {
      const row = this.mustGet(id);
      if (row.status === 'resolved')
        throw new AlertError('ALREADY_RESOLVED', `alert ${id} is already resolved`);
      this.resolveAlert(u, row, { how: 'manual', by: actor, at: u.now, evidence: { note: text } });
      this.feedClosed(u, row, 'manual', u.now);
    });
  }

  /** Records an engineer's extension letter: moves the due time later, keeps the old one in history. */
  extend(id: string, actor: string, ext: ExtensionInput): AlertDto {
    if (!Number.isFinite(ext.newDueAt)) throw new AlertError('BAD_EXTENSION', 'newDueAt must be a time');
    if (!ext.engineer?.trim()) throw new AlertError('BAD_EXTENSION', 'the engineer is required');
    if (!ext.letterRef?.trim()) throw new AlertError('BAD_EXTENSION', 'the letter reference is required');
    return this.runForAlert(this.now(), id, (u) => {
      const row = this.mustGet(id);
      if (row.status === 'resolved') throw new AlertError('ALREADY_RESOLVED', `alert ${id} is resolved`);
      if (row.due_at === null) throw new AlertError('BAD_EXTENSION', `alert ${id} has no deadline to extend`);
      if (ext.newDueAt <= row.due_at)
        throw new AlertError(
          'BAD_EXTENSION',
          `an extension must move the deadline later than ${toIso(row.due_at)}, not to ${toIso(ext.newDueAt)}`,
        );
      const note = ext.note?.trim() ? ext.note.trim() : null;
      const extSeq = this.store.appendExtension({
        alert_id: id,
        old_due: row.due_at,
        new_due: ext.newDueAt,
        engineer: ext.engineer.trim(),
        letter_ref: ext.letterRef.trim(),
        note,
        at: u.now,
        by: actor,
      });
      this.store.setDue(id, ext.newDueAt, u.now);
      u.earliestTimer = Math.min(
        u.earliestTimer,
        this.store.armTimers(id, ext.newDueAt, this.reminderHours, u.now),
      );
      const detail: Evidence = {
        oldDueAt: toIso(row.due_at),
        newDueAt: toIso(ext.newDueAt),
        engineer: ext.engineer.trim(),
        letterRef: ext.letterRef.trim(),
        extensionSeq: extSeq,
      };
      if (row.original_due_at !== null) detail.originalDueAt = toIso(row.original_due_at);
      if (note !== null) detail.note = note;
      const seq = this.appendHistory(u, {
        alertId: id,
        at: u.now,
        sourceAt: null,
        actor,
        action: 'extended',
        detail,
      });
      this.changed(u, id, 'extended', seq, 'extension');
    });
  }

  /**
   * Records an inspection (append-only), feeds it to the site's evaluators, and closes the site's
   * open storm-inspection alerts raised at or before it (for inspection kinds that are erosion and
   * sediment control inspections: storm, routine, other).
   */
  recordInspection(
    input: InspectionInput,
    actor: string,
  ): { inspection: InspectionDto; closedAlertIds: string[] } {
    const idx = this.sites.get(input.siteId);
    if (!idx) throw new AlertError('UNKNOWN_SITE', `no site "${input.siteId}"`);
    if (!(INSPECTION_KINDS as readonly string[]).includes(input.kind))
      throw new AlertError('BAD_INSPECTION', `kind must be one of ${INSPECTION_KINDS.join(', ')}`);
    if (!Number.isFinite(input.at)) throw new AlertError('BAD_INSPECTION', 'at must be a time');
    if (!input.inspector?.trim()) throw new AlertError('BAD_INSPECTION', 'the inspector is required');
    const now = this.now();
    if (input.at > now + INSPECTION_FUTURE_SLACK_MS)
      throw new AlertError(
        'BAD_INSPECTION',
        `an inspection cannot be recorded in the future (${toIso(input.at)})`,
      );
    return this.run(now, (u) => {
      const id = `insp-${ulid(u.now)}`;
      const inspector = input.inspector.trim();
      this.store.appendInspection({
        id,
        site_id: input.siteId,
        at: input.at,
        inspector,
        kind: input.kind,
        notes: input.notes ?? '',
        recorded_at: u.now,
        recorded_by: actor,
      });
      const feed: RuleInput = {
        type: 'inspection',
        siteId: input.siteId,
        at: input.at,
        kind: input.kind,
        inspector,
        id,
      };
      for (const inst of idx.all) this.applyEffects(u, inst, this.evaluate(u, inst, feed));
      const closedAlertIds: string[] = [];
      const closing = rulesClosedByInspection(input.kind);
      if (closing.length > 0) {
        for (const row of this.store.openAlertsBegunBy(input.siteId, closing, input.at)) {
          this.resolveAlert(u, row, {
            how: 'auto',
            by: actor,
            at: input.at,
            sourceAt: input.at,
            message: `Inspected by ${inspector} at ${toIso(input.at)}`,
            evidence: { inspectionId: id, inspector, kind: input.kind },
          });
          this.feedClosed(u, row, 'auto', input.at);
          closedAlertIds.push(row.id);
        }
      }
      const inspection = inspectionDto(this.store.inspectionById(id)!);
      if (this.onChange) u.events.push({ type: 'inspection', inspection });
      return { inspection, closedAlertIds };
    });
  }

  // ---------------------------------------------------------------- queries

  listAlerts(q: AlertQuery = {}): AlertDto[] {
    const now = this.now();
    const rows = this.store.queryAlerts(q, now);
    const hist = this.store.historyOfMany(rows.map((r) => r.id));
    return rows.map((r) => toDto(r, hist.get(r.id) ?? [], now));
  }

  getAlert(id: string): AlertDto | undefined {
    const row = this.store.alertById(id);
    return row ? this.dto(row, this.now()) : undefined;
  }

  /** Storm events overlapping [from, to], each with whether its inspection was on time, late or missing. */
  listStorms(q: { siteId?: string; from?: number; to?: number } = {}): StormDto[] {
    const now = this.now();
    return this.store.queryStorms(q).map((s) => this.stormDto(s, now));
  }

  listInspections(q: { siteId?: string; from?: number; to?: number } = {}): InspectionDto[] {
    return this.store.queryInspections(q).map(inspectionDto);
  }

  listExtensions(q: { alertId?: string; siteId?: string; from?: number; to?: number } = {}): ExtensionDto[] {
    return this.store.queryExtensions(q).map(extensionDto);
  }

  /** Recomputes a hash chain (alert history by default) and reports the first broken link. */
  verifyChain(fromSeq?: number, toSeq?: number, table: ChainedTable = 'alert_history'): ChainCheck {
    return this.store.verifyChain(fromSeq, toSeq, table);
  }

  /** The last row of each chain: what a report cites so later removal of rows can be detected. */
  chainHeads(): Record<ChainedTable, { seq: number; hash: string } | null> {
    return {
      alert_history: this.store.chainHead('alert_history'),
      inspections: this.store.chainHead('inspections'),
      extensions: this.store.chainHead('extensions'),
    };
  }

  // ---------------------------------------------------------------- internals

  private newUnit(now: number): Unit {
    return {
      now,
      staged: new Map(),
      events: [],
      pending: new Map(),
      touched: new Set(),
      outbox: [],
      dtos: new Map(),
      earliestTimer: Number.POSITIVE_INFINITY,
      effects: 0,
      notified: 0,
    };
  }

  /** Runs `fn` in one transaction with the evaluators' state; memory and listeners see it only after commit. */
  private run<T>(now: number, fn: (u: Unit) => T, u: Unit = this.newUnit(now)): T {
    const result = this.db.transaction(() => {
      const r = fn(u);
      this.finish(u);
      return r;
    })();
    this.afterCommit(u);
    return result;
  }

  /** Like `run`, for a change to one alert: returns that alert's DTO as committed. */
  private runForAlert(now: number, alertId: string, fn: (u: Unit) => void): AlertDto {
    const u = this.newUnit(now);
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

  /**
   * The end of a transaction: writes the coalesced updates, builds each changed alert's DTO once,
   * records the notification events with it, and saves the evaluators' state.
   */
  private finish(u: Unit): void {
    this.flushUpdates(u);
    for (const id of u.touched) u.dtos.set(id, this.dto(this.mustGet(id), u.now));
    for (const n of u.outbox)
      recordNotificationEvent(this.db, {
        eventId: `${n.alertId}:${n.kind}:${n.seq}`,
        kind: n.kind,
        alert: u.dtos.get(n.alertId)!,
        createdAt: u.now,
      });
    this.flushStates(u);
  }

  private afterCommit(u: Unit): void {
    for (const [key, s] of u.staged) this.stateCache.set(key, s.state);
    if (this.onChange)
      for (const q of u.events) {
        const e: AlertEvent =
          q.type === 'alert' ? { type: 'alert', action: q.action, alert: u.dtos.get(q.alertId)! } : q;
        try {
          this.onChange(e);
        } catch (err) {
          this.log.error({ err: String(err) }, 'alert change listener failed');
        }
      }
    if (u.notified > 0 && this.onNotify) {
      try {
        this.onNotify();
      } catch (err) {
        this.log.error({ err: String(err) }, 'notification hook failed; the dispatcher will find the events');
      }
    }
    if (this.running && u.earliestTimer < this.wakeAt) this.scheduleNext();
  }

  private flushStates(u: Unit): void {
    for (const { inst, state } of u.staged.values())
      this.store.saveState(
        inst.siteId,
        inst.stateKey,
        inst.deviceId ?? '',
        JSON.stringify(state) ?? 'null',
        u.now,
      );
  }

  private instancesFor(idx: SiteIndex, deviceId: string): SiteRule[] {
    let list = idx.byDevice.get(deviceId);
    if (!list) {
      list = idx.all.filter((i) => i.deviceId === undefined || i.deviceId === deviceId);
      idx.byDevice.set(deviceId, list);
    }
    return list;
  }

  private stateOf(u: Unit, inst: SiteRule, ctx: RuleContext): unknown {
    const key = stateKey(inst);
    const staged = u.staged.get(key);
    if (staged) return staged.state;
    if (this.stateCache.has(key)) return this.stateCache.get(key);
    const stored = this.store.loadState(inst.siteId, inst.stateKey, inst.deviceId ?? '');
    const state = stored !== undefined ? JSON.parse(stored) : inst.evaluator.init(ctx, inst.deviceId);
    this.stateCache.set(key, state);
    return state;
  }

  private evaluate(u: Unit, inst: SiteRule, input: RuleInput): Effect[] {
    try {
      const ctx = this.sites.get(inst.siteId)!.ctx;
      const prev = this.stateOf(u, inst, ctx);
      const out = inst.evaluator.evaluate(prev, input, ctx);
      if (out.state !== prev) u.staged.set(stateKey(inst), { inst, state: out.state });
      return out.effects;
    } catch (err) {
      this.m.ruleErrors.inc({ rule: inst.stateKey });
      this.log.error(
        {
          rule: inst.stateKey,
          siteId: inst.siteId,
          deviceId: inst.deviceId,
          input: input.type,
          err: String(err),
        },
        'rule evaluator failed; input skipped for this rule',
      );
      return [];
    }
  }

  private applyEffects(u: Unit, inst: SiteRule, effects: readonly Effect[]): void {
    for (const e of effects) {
      u.effects++;
      switch (e.type) {
        case 'open': {
          if (e.siteId !== inst.siteId)
            this.log.warn({ rule: e.rule, key: e.key, siteId: e.siteId }, 'open effect for another site');
          const existing = this.store.alertByKey(inst.siteId, e.key);
          if (existing) {
            this.updateAlert(u, existing, {
              at: e.at,
              dueAt: e.dueAt,
              message: e.message,
              evidence: e.evidence,
            });
          } else {
            this.raise(u, inst, e);
          }
          break;
        }
        case 'update': {
          const row = this.store.alertByKey(inst.siteId, e.key);
          if (!row) {
            this.m.ignored.inc({ type: 'update', reason: 'unknown_key' });
            this.log.debug({ rule: inst.stateKey, key: e.key }, 'update for an unknown alert ignored');
          } else {
            this.updateAlert(u, row, e);
          }
          break;
        }
        case 'resolve': {
          const row = this.store.alertByKey(inst.siteId, e.key);
          if (!row || row.status === 'resolved') {
            this.m.ignored.inc({ type: 'resolve', reason: row ? 'resolved' : 'unknown_key' });
          } else {
            this.resolveAlert(u, row, {
              how: 'auto',
              by: 'system',
              at: e.at,
              sourceAt: e.at,
              message: e.message,
              evidence: e.evidence,
            });
          }
          break;
        }
        case 'storm': {
          this.store.upsertStorm(e.event, u.now);
          if (this.onChange)
            u.events.push({ type: 'storm', storm: this.stormDto(this.store.stormById(e.event.id)!, u.now) });
          break;
        }
      }
    }
  }

  private raise(u: Unit, inst: SiteRule, e: Extract<Effect, { type: 'open' }>): void {
    const id = ulid(u.now);
    const dueAt = e.dueAt ?? null;
    this.store.insertAlert({
      id,
      key: e.key,
      rule: e.rule as RuleId,
      siteId: inst.siteId,
      deviceId: e.deviceId ?? inst.deviceId ?? null,
      raisedAt: e.at,
      dueAt,
      message: e.message,
      evidence: canonicalJson(e.evidence ?? {}),
      now: u.now,
    });
    const detail: Evidence = { message: e.message, evidence: e.evidence ?? {} };
    if (dueAt !== null) detail.dueAt = toIso(dueAt);
    const seq = this.appendHistory(u, {
      alertId: id,
      at: u.now,
      sourceAt: e.at,
      actor: 'system',
      action: 'raised',
      detail,
    });
    u.earliestTimer = Math.min(u.earliestTimer, this.store.armTimers(id, dueAt, this.reminderHours, u.now));
    this.m.raised.inc({ rule: e.rule });
    this.changed(u, id, 'raised', seq, 'raise');
  }

  /** Changes due time, message or evidence of an unresolved alert; a no-op change writes nothing. */
  private updateAlert(
    u: Unit,
    row: AlertRow,
    patch: {
      at: number;
      dueAt?: number | undefined;
      message?: string | undefined;
      evidence?: Evidence | undefined;
    },
  ): void {
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
    this.store.updateContent({
      id: row.id,
      dueAt,
      originalDueAt,
      message,
      evidence,
      overdueNotified,
      now: u.now,
    });
    // The history row, the timers and the live event follow once per transaction (flushUpdate).
    const after: AlertContent = { dueAt, originalDueAt, message, evidence };
    const pending = u.pending.get(row.id);
    if (pending) {
      pending.after = after;
      pending.sourceAt = patch.at;
      if (dueChanged) pending.dueChanged = true;
      if (patch.evidence) pending.evidence = { ...pending.evidence, ...patch.evidence };
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
      extended,
      dueChanged,
      evidence: patch.evidence ? { ...patch.evidence } : undefined,
      sourceAt: patch.at,
    });
    if (this.onChange) u.events.push({ type: 'alert', action: 'updated', alertId: row.id });
  }

  /** Writes the coalesced updates still pending in this transaction. */
  private flushUpdates(u: Unit): void {
    for (const id of [...u.pending.keys()]) this.flushUpdate(u, id);
  }

  /**
   * Writes the one `updated` history row for the updates to an alert since its last history row in
   * this transaction (old due time before them, the final content after), and re-arms its timers for
   * the final due time.
   */
  private flushUpdate(u: Unit, alertId: string): void {
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
    this.store.appendHistory({
      alertId,
      at: u.now,
      sourceAt: p.sourceAt,
      actor: 'system',
      action: 'updated',
      detail,
    });
    if (p.dueChanged)
      u.earliestTimer = Math.min(
        u.earliestTimer,
        this.store.armTimers(alertId, after.dueAt, this.reminderHours, u.now),
      );
    // The live event was queued with the first update, in order among the transaction's events.
    if (this.onChange) u.touched.add(alertId);
  }

  /** Appends a history row for an alert, after the updates to it still pending in this transaction. */
  private appendHistory(u: Unit, h: Parameters<AlertStore['appendHistory']>[0]): number {
    this.flushUpdate(u, h.alertId);
    return this.store.appendHistory(h);
  }

  private resolveAlert(
    u: Unit,
    row: AlertRow,
    r: {
      how: 'auto' | 'manual';
      by: string;
      at: number;
      sourceAt?: number;
      message?: string;
      evidence: Evidence;
    },
  ): void {
    // The updates before it come first in the history, and their timers are cancelled with the rest.
    this.flushUpdate(u, row.id);
    const within = row.due_at === null ? null : r.at <= row.due_at ? 1 : 0;
    this.store.resolve({
      id: row.id,
      resolvedAt: r.at,
      how: r.how,
      by: r.by,
      message: r.message ?? null,
      evidence: canonicalJson(r.evidence),
      withinDeadline: within,
      now: u.now,
    });
    this.store.cancelTimers(row.id);
    const detail: Evidence = { how: r.how, resolvedAt: toIso(r.at), evidence: r.evidence };
    if (r.message !== undefined) detail.message = r.message;
    if (within !== null) detail.withinDeadline = within === 1;
    const seq = this.appendHistory(u, {
      alertId: row.id,
      at: u.now,
      sourceAt: r.sourceAt ?? null,
      actor: r.by,
      action: 'resolved',
      detail,
    });
    this.m.resolved.inc({ rule: row.rule, how: r.how });
    this.changed(u, row.id, 'resolved', seq, 'resolve');
  }

  /** Tells the evaluators of an alert's rule that it was closed from outside their own effects. */
  private feedClosed(u: Unit, row: AlertRow, how: 'manual' | 'auto', at: number): void {
    const idx = this.sites.get(row.site_id);
    if (!idx) return;
    const input: RuleInput = { type: 'alert-closed', key: row.key, at, how };
    for (const inst of idx.all) {
      if (!inst.rules.includes(row.rule)) continue;
      if (inst.deviceId !== undefined && inst.deviceId !== row.device_id) continue;
      this.applyEffects(u, inst, this.evaluate(u, inst, input));
    }
  }

  private fireReminders(u: Unit): number {
    const byAlert = new Map<string, TimerRow[]>();
    for (const t of this.store.dueReminderTimers(u.now)) {
      const list = byAlert.get(t.alert_id) ?? [];
      list.push(t);
      byAlert.set(t.alert_id, list);
    }
    let sent = 0;
    for (const [alertId, timers] of byAlert) {
      const row = this.store.alertById(alertId);
      if (!row || row.status === 'resolved' || row.due_at === null) {
        for (const t of timers) this.store.markTimer(t.id, u.now, 'cancelled');
        continue;
      }
      const live = timers.filter((t) => t.due_at === row.due_at);
      for (const t of timers) if (t.due_at !== row.due_at) this.store.markTimer(t.id, u.now, 'cancelled');
      if (live.length === 0) continue;
      if (row.due_at <= u.now) {
        for (const t of live) this.store.markTimer(t.id, u.now, 'skipped');
        continue;
      }
      // Several reminders came due at once (the gateway was down): only the one closest to the deadline goes out.
      live.sort((a, b) => (a.hours ?? 0) - (b.hours ?? 0));
      const [send, ...skip] = live;
      for (const t of skip) this.store.markTimer(t.id, u.now, 'skipped');
      this.store.markTimer(send!.id, u.now, 'sent');
      const hours = send!.hours ?? 0;
      const list = JSON.parse(row.reminders_sent) as unknown[];
      list.push({ hours, dueAt: toIso(row.due_at), at: toIso(u.now) });
      this.store.setReminders(row.id, JSON.stringify(list), u.now);
      const seq = this.appendHistory(u, {
        alertId: row.id,
        at: u.now,
        sourceAt: null,
        actor: 'system',
        action: 'reminder',
        detail: { hours, dueAt: toIso(row.due_at) },
      });
      this.m.reminders.inc({ rule: row.rule });
      this.changed(u, row.id, 'reminder', seq, 'reminder');
      sent++;
    }
    return sent;
  }

  private fireOverdue(u: Unit, row: AlertRow): void {
    this.flushUpdate(u, row.id);
    this.store.setOverdue(row.id, u.now);
    const seq = this.appendHistory(u, {
      alertId: row.id,
      at: u.now,
      sourceAt: null,
      actor: 'system',
      action: 'overdue',
      detail: { dueAt: toIso(row.due_at!) },
    });
    this.m.overdue.inc({ rule: row.rule });
    this.changed(u, row.id, 'overdue', seq, 'overdue');
  }

  /**
   * After a change: queues the notification event and the live event. Both get the alert's DTO as the
   * transaction leaves it, built once per alert (finish); the notification event is recorded in the
   * same transaction.
   */
  private changed(
    u: Unit,
    alertId: string,
    action: HistoryAction,
    seq: number,
    notify?: NotificationKind,
  ): void {
    if (notify) {
      u.outbox.push({ alertId, kind: notify, seq });
      u.notified++;
      u.touched.add(alertId);
    }
    if (this.onChange) {
      u.events.push({ type: 'alert', action, alertId });
      u.touched.add(alertId);
    }
  }

  private mustGet(id: string): AlertRow {
    const row = this.store.alertById(id);
    if (!row) throw new AlertError('NOT_FOUND', `no alert "${id}"`);
    return row;
  }

  private dto(row: AlertRow, now: number): AlertDto {
    return toDto(row, this.store.history(row.id), now);
  }

  private stormDto(s: StormRow, now: number): StormDto {
    const dto: StormDto = {
      id: s.id,
      siteId: s.site_id,
      deviceId: s.device_id,
      start: toIso(s.start),
      end: toIso(s.end),
      tips: s.tips,
      inches: s.inches,
      qualified: s.qualified === 1,
      closed: s.closed === 1,
      inspection: { status: 'not-required' },
    };
    if (s.threshold_at !== null) dto.thresholdAt = toIso(s.threshold_at);
    if (s.due_at !== null) dto.dueAt = toIso(s.due_at);
    if (s.qualified === 1) {
      const insp = this.store.firstCoveringInspection(
        s.site_id,
        s.threshold_at ?? s.start,
        INSPECTION_KINDS.filter(meetsStormInspection),
      );
      if (insp) {
        const late = s.due_at !== null && insp.at > s.due_at;
        dto.inspection = {
          status: late ? 'late' : 'on-time',
          inspectionId: insp.id,
          inspectedAt: toIso(insp.at),
        };
      } else {
        dto.inspection = { status: s.due_at !== null && now > s.due_at ? 'missing' : 'pending' };
      }
    }
    return dto;
  }

  private scheduledTick(): void {
    this.timer = undefined;
    this.wakeAt = Number.POSITIVE_INFINITY;
    try {
      this.tick(this.now());
    } catch (err) {
      this.log.error({ err: String(err) }, 'engine tick failed; retrying at the next one');
    }
    this.scheduleNext();
  }

  private scheduleNext(): void {
    if (!this.running) return;
    if (this.timer) clearTimeout(this.timer);
    const now = this.now();
    let delay = this.tickIntervalMs;
    if (this.db.open) {
      const next = this.store.nextTimerAt();
      if (next !== null) delay = Math.min(delay, next - now);
    }
    delay = Math.max(50, Math.min(delay, this.tickIntervalMs));
    this.wakeAt = now + delay;
    this.timer = setTimeout(() => this.scheduledTick(), delay);
    this.timer.unref();
  }
}

function toDto(r: AlertRow, history: HistoryRow[], now: number): AlertDto {
  const dto: AlertDto = {
    id: r.id,
    rule: r.rule,
    siteId: r.site_id,
    status: r.status,
    overdue: r.status !== 'resolved' && r.due_at !== null && now > r.due_at,
    raisedAt: toIso(r.raised_at),
    dueAt: r.due_at === null ? null : toIso(r.due_at),
    message: r.message,
    evidence: JSON.parse(r.evidence) as Evidence,
    history: history.map(historyEntry),
  };
  if (r.device_id !== null) dto.deviceId = r.device_id;
  if (r.original_due_at !== null) dto.originalDueAt = toIso(r.original_due_at);
  if (r.acknowledged_at !== null) dto.acknowledgedAt = toIso(r.acknowledged_at);
  if (r.acknowledged_by !== null) dto.acknowledgedBy = r.acknowledged_by;
  if (r.resolved_at !== null) dto.resolvedAt = toIso(r.resolved_at);
  if (r.within_deadline !== null) dto.withinDeadline = r.within_deadline === 1;
  if (r.resolution !== null) {
    dto.resolution = {
      how: r.resolution,
      by: r.resolved_by ?? 'system',
      evidence: JSON.parse(r.resolution_evidence ?? '{}') as Evidence,
    };
    if (r.resolution_message !== null) dto.resolution.message = r.resolution_message;
  }
  return dto;
}

function historyEntry(h: HistoryRow): AlertHistoryEntry {
  const e: AlertHistoryEntry = {
    seq: h.seq,
    at: toIso(h.at),
    actor: h.actor,
    action: h.action,
    detail: JSON.parse(h.detail) as Evidence,
  };
  if (h.source_at !== null) e.sourceAt = toIso(h.source_at);
  return e;
}

function inspectionDto(i: InspectionRow): InspectionDto {
  return {
    id: i.id,
    siteId: i.site_id,
    at: toIso(i.at),
    inspector: i.inspector,
    kind: i.kind,
    notes: i.notes,
    recordedAt: toIso(i.recorded_at),
    recordedBy: i.recorded_by,
    hash: i.hash,
  };
}

function extensionDto(e: ExtensionRow & { site_id: string; rule: RuleId }): ExtensionDto {
  const dto: ExtensionDto = {
    seq: e.seq,
    alertId: e.alert_id,
    siteId: e.site_id,
    rule: e.rule,
    oldDueAt: toIso(e.old_due),
    newDueAt: toIso(e.new_due),
    engineer: e.engineer,
    letterRef: e.letter_ref,
    at: toIso(e.at),
    by: e.by,
    hash: e.hash,
  };
  if (e.note !== null) dto.note = e.note;
  return dto;
}
