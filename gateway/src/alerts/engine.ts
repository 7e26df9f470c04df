/**
 * The deadline engine, a facade over its layers: feeds readings, clock ticks and people's actions to
 * the rules bound to each site (`rules.ts`), turns their effects into alert lifecycle changes
 * (`lifecycle.ts`), keeps deadlines (reminders, overdue escalation: `deadlines.ts`) in the store so a
 * restart neither loses nor repeats one, and answers the API's commands and queries (`commands.ts`,
 * `queries.ts`). Every change is one unit of work (`unit.ts`): one SQLite transaction with the
 * evaluators' new state, its history rows and its notification events.
 */

import type { AlertDto, HistoryAction, StormDto } from '../../../shared/src/api/alerts.ts';
import type { Reading } from '../../../shared/src/telemetry.ts';
import type { Config, SiteConfig } from '../config/schema.ts';
import type { SiteCatalogue, SiteChange } from '../config/sites.ts';
import type { Registry } from '../metrics.ts';
import type { Log } from '../pipeline.ts';
import type { SiteRule } from '../rules/index.ts';
import type { RuleInput } from '../rules/types.ts';
import type { EvidenceLog } from '../store/evidenceLog.ts';
import { READINGS } from './cause.ts';
import { ClockWatch } from './clock.ts';
import { coalesceUpdates } from './coalesce.ts';
import { Commands } from './commands.ts';
import { Deadlines } from './deadlines.ts';
import { Lifecycle } from './lifecycle.ts';
import { type EngineMetrics, engineMetrics } from './metrics.ts';
import { Queries } from './queries.ts';
import { RuleStates } from './ruleStates.ts';
import { RuleRunner } from './rules.ts';
import { Scheduler } from './scheduler.ts';
import { Slice } from './slice.ts';
import { openAlertStores } from './stores/index.ts';
import type { AlertEvent, Db, TickResult } from './types.ts';
import { UnitOfWork } from './unit.ts';

export type { AlertEvent, ExtensionInput, InspectionInput, TickResult } from './types.ts';

/** What a change run in the engine's unit of work (`inUnit`) may do inside its transaction. */
export interface UnitWork {
  /** The unit's time (the engine's clock). */
  readonly now: number;
  /** Feeds an input to the rules bound to a site; their effects are applied in this transaction. */
  feed(siteId: string, input: RuleInput): void;
  /** A notification event was written in this transaction: the dispatcher is told after the commit. */
  notified(): void;
}

/** An engine listener for an output that takes alerts and storms apart (the InfluxDB output). */
export function alertsAndStorms(out: {
  alertChanged(alert: AlertDto, action: HistoryAction): void;
  stormChanged(storm: StormDto): void;
}): (event: AlertEvent) => void {
  return (e) => {
    if (e.type === 'alert') out.alertChanged(e.alert, e.action);
    if (e.type === 'storm') out.stormChanged(e.storm);
  };
}

export interface ComplianceEngineOptions {
  db: Db;
  config: Config;
  /** The rules bound to a site (the registry's: `evaluatorsFor` of rules/index.ts). */
  evaluatorsFor: (site: SiteConfig) => SiteRule[];
  now: () => number;
  log: Log;
  metrics: Registry;
  /** The live sites the rules are bound to (the catalogue's); `siteEvent` follows their changes. */
  sites: Pick<SiteCatalogue, 'sites' | 'site'>;
  /** Longest wait between two scheduled ticks (default 60 s); a pending reminder or deadline wakes it sooner. */
  tickIntervalMs?: number;
  /** The evidence log every history entry, inspection, extension and storm record is appended to. */
  evidence: EvidenceLog;
  /** The monotonic clock the wall clock is watched against while the scheduler runs (performance.now). */
  monotonic?: () => number;
}

export class ComplianceEngine {
  private readonly now: () => number;
  private readonly m: EngineMetrics;
  private readonly unit: UnitOfWork;
  private readonly rules: RuleRunner;
  private readonly deadlines: Deadlines;
  private readonly commands: Commands;
  private readonly queries: Queries;
  private readonly evidence: EvidenceLog;
  private readonly db: Db;
  private readonly scheduler: Scheduler;
  private readonly clock: ClockWatch;
  private readonly listeners = new Set<(event: AlertEvent) => void>();
  private readonly notifyListeners = new Set<() => void>();
  private readonly catalogue: Pick<SiteCatalogue, 'sites' | 'site'>;
  /** Readings evaluated, their effects and states not committed yet. */
  private slice: Slice | undefined;
  private sliceCursor: ((upTo: number | undefined) => void) | undefined;
  private sliceFailed: ((e: Error) => void) | undefined;

  constructor(opts: ComplianceEngineOptions) {
    this.catalogue = opts.sites;
    const { db, config, log } = opts;
    this.clock = new ClockWatch({
      wall: opts.now,
      monotonic: opts.monotonic ?? (() => performance.now()),
      log,
      metrics: opts.metrics,
      onChange: () => this.scheduler.clockChanged(),
    });
    // While the scheduler runs, the engine's time is the watched clock's; stopped (tests driving the
    // engine by hand, tools), the wall clock as given.
    this.now = () => (this.scheduler.started ? this.clock.now() : opts.now());
    this.evidence = opts.evidence;
    this.db = db;
    const stores = openAlertStores(db, opts.evidence);
    const reminderHours = [...new Set(config.notify.reminderHours)].sort((a, b) => b - a);
    this.scheduler = new Scheduler({
      tick: (now) => this.tick(now),
      nextTimerAt: () => (db.open ? stores.timers.nextAt() : null),
      now: () => this.clock.now(),
      tickIntervalMs: opts.tickIntervalMs ?? 60_000,
      log,
    });
    const states = new RuleStates(stores.ruleStates, config.storage.ruleStateCacheMb * 1024 * 1024);
    this.m = engineMetrics(
      opts.metrics,
      () => (db.open ? stores.alerts.openCounts() : undefined),
      () => states.stats(),
    );
    this.unit = new UnitOfWork({
      db,
      evidence: opts.evidence,
      stores,
      states,
      reminderHours,
      log,
      listeners: this.listeners,
      notifyListeners: this.notifyListeners,
      onTimers: (earliest) => this.scheduler.wake(earliest),
      beforeFinish: (u) => this.rules.writeStorms(u),
      beforeRun: () => this.commitBefore(),
    });
    const lifecycle = new Lifecycle(stores, this.unit, this.m, reminderHours);
    this.queries = new Queries(stores, this.now);
    this.rules = new RuleRunner({
      config,
      sites: opts.sites.sites(),
      evaluatorsFor: opts.evaluatorsFor,
      states,
      stores,
      lifecycle,
      queries: this.queries,
      metrics: this.m,
      log,
    });
    this.deadlines = new Deadlines(stores, this.unit, this.m);
    this.commands = new Commands({ unit: this.unit, stores, lifecycle, rules: this.rules, now: this.now });
  }

  /**
   * Listens to every committed change (an alert raised or changed, a storm, an inspection), after its
   * commit and in commit order; a listener that throws is logged and the others still run. Returns the
   * unsubscribe.
   */
  onChange(listener: (event: AlertEvent) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /**
   * Listens to commits that wrote notification events (the dispatcher's `notify()`, so it sends them at
   * once rather than at its next poll). Returns the unsubscribe.
   */
  onNotify(listener: () => void): () => void {
    this.notifyListeners.add(listener);
    return () => {
      this.notifyListeners.delete(listener);
    };
  }

  // ---------------------------------------------------------------- inputs

  /**
   * Evaluates a batch of readings (in source-time order per device) and applies the effects in one
   * transaction: `stageReadings` and `commitSlice` at once. Readings that change nothing cost no SQL
   * beyond the evaluators' state, written once per batch.
   */
  handleReadings(readings: readonly Reading[]): { effects: number } {
    this.stageReadings(readings);
    return { effects: this.commitSlice(this.sliceCursor)?.effects ?? 0 };
  }

  /**
   * Evaluates readings into the open slice (`slice.ts`), in memory: their states are staged, their
   * effects kept to apply at the slice's commit. `upTo` is the id of the last reading, which the
   * slice's commit hands to its `inTransaction` (the rules cursor). Returns whether the slice should be
   * committed now (an alert opens or closes) and how many readings it holds.
   */
  stageReadings(readings: readonly Reading[], upTo?: number): { urgent: boolean; readings: number } {
    const started = performance.now();
    this.slice ??= new Slice(this.unit.begin(this.now()));
    const s = this.slice;
    try {
      s.add(this.rules.evaluateReadings(s.u, readings), readings.length, upTo);
    } catch (e) {
      // A state the store could not give, part way: nothing of the slice is kept, it is evaluated again.
      this.slice = undefined;
      throw e;
    }
    this.m.batchSeconds.observe((performance.now() - started) / 1000);
    return { urgent: s.urgent, readings: s.readings };
  }

  /** Readings evaluated and not committed yet. */
  get staged(): number {
    return this.slice?.readings ?? 0;
  }

  /**
   * Commits the open slice in one transaction: its effects (an alert's updates in a row folded into one,
   * `coalesce.ts`), its storm records (one version each), its states, and `inTransaction(upTo)`.
   * Undefined when no slice is open. A failed commit drops the slice (nothing of it reached memory) and
   * throws: its readings are evaluated again from the last committed cursor.
   */
  commitSlice(
    inTransaction?: (upTo: number | undefined) => void,
  ): { effects: number; upTo: number | undefined } | undefined {
    const s = this.slice;
    if (!s) return undefined;
    // Cleared first: the unit's own run must not commit it again (`beforeRun`), and a failure drops it.
    this.slice = undefined;
    const { u } = s;
    u.at(this.now());
    const work = coalesceUpdates(s.work);
    if (work.length > 0 || u.staged.size > 0 || inTransaction)
      this.unit.run(
        u.now,
        () => {
          for (const w of work) this.rules.apply(u, w.rule, w.effects, READINGS);
          inTransaction?.(s.upTo);
        },
        u,
      );
    return { effects: u.effects, upTo: s.upTo };
  }

  /**
   * Before any other change (a tick, a person's action): the open slice is committed first, so that
   * change sees the states and alerts the readings before it left. A failure is told to `onSliceFailed`.
   */
  private commitBefore(): void {
    if (!this.slice) return;
    try {
      this.commitSlice(this.sliceCursor);
    } catch (e) {
      this.sliceFailed?.(e as Error);
    }
  }

  /**
   * The rules stage's part in slices committed by other changes: the cursor written in their
   * transaction, and a failure to commit.
   */
  onSlice(hooks: { inTransaction: (upTo: number | undefined) => void; failed: (e: Error) => void }): void {
    this.sliceCursor = hooks.inTransaction;
    this.sliceFailed = hooks.failed;
  }

  /**
   * Sends a clock tick to every evaluator, then fires due reminders and flags alerts past their due
   * time as overdue (each once, recorded in the store).
   */
  tick(now: number = this.now()): TickResult {
    const started = performance.now();
    const result = this.unit.run(now, (u) => {
      this.rules.feedAll(u, { type: 'tick', now });
      // Reminders and overdue flags follow the timers and due times the updates left.
      this.unit.flushUpdates(u);
      const reminders = this.deadlines.fireReminders(u);
      const overdue = this.deadlines.escalate(u);
      return { effects: u.effects, reminders, overdue };
    });
    this.m.tickSeconds.observe((performance.now() - started) / 1000);
    return result;
  }

  /** Starts the scheduler; the first tick runs at once (catch-up for deadlines passed while down). */
  start(): void {
    this.scheduler.start();
  }

  stop(): void {
    this.scheduler.stop();
  }

  /**
   * The time the clock guard trusts (clock.ts), whether or not the scheduler runs: the wall clock while it
   * keeps step with the monotonic clock; while it is out of step (a jump not taken yet), the monotonic
   * clock's time from the last wall time it trusted. Arrivals are stamped with it (main.ts), so a reading
   * without its own `ts` is never stored at a jumped wall time.
   */
  readonly trustedNow = (): number => this.clock.now();

  /** The engine's clock for /api/health: in step with the monotonic clock, or a jump. */
  clockHealth() {
    if (this.scheduler.started) this.clock.now();
    return this.clock.health();
  }

  /** A device's clock found ahead (a reading quarantined) or corrected: told to the site's rules at once. */
  deviceClock(input: Extract<RuleInput, { type: 'clock-ahead' | 'clock-corrected' }>): void {
    this.unit.run(this.now(), (u) => {
      this.rules.feedSite(u, input.siteId, input);
      this.unit.flushUpdates(u);
    });
  }

  /**
   * A site was added or changed (its devices, parameters, its history on record): its rules are bound
   * again, at once, and a tick follows at once, so that the clocks its history starts open now rather than
   * at the next minute.
   */
  siteChanged(site: SiteConfig): void {
    this.commitBefore();
    this.rules.bindSite(site);
    this.scheduler.wake(this.now());
  }

  /** For the site catalogue's listeners: the changed site, as it is now, is bound again. */
  readonly siteEvent = (e: SiteChange): void => {
    const site = this.catalogue.site(e.siteId);
    if (site) this.siteChanged(site);
  };

  // ---------------------------------------------------------------- people's actions

  acknowledge: Commands['acknowledge'] = (id, actor, note) => this.commands.acknowledge(id, actor, note);
  resolve: Commands['resolve'] = (id, actor, note, whileActive) =>
    this.commands.resolve(id, actor, note, whileActive);
  extend: Commands['extend'] = (id, actor, ext) => this.commands.extend(id, actor, ext);
  recordInspection: Commands['recordInspection'] = (input, actor) =>
    this.commands.recordInspection(input, actor);

  /**
   * Runs a change made outside the engine (such as enforcement's notices and orders, through their port) as one
   * unit of work at the engine's time, after the open slice of readings is committed: one transaction with
   * the change's own rows, the evidence-log entries it appends, the inputs it feeds a site's rules (and the
   * alerts they open or close), and its notification events. Returns what `change` returns, once committed.
   */
  inUnit<T>(change: (w: UnitWork) => T): T {
    return this.unit.run(this.now(), (u) =>
      change({
        now: u.now,
        feed: (siteId, input) => this.rules.feedSite(u, siteId, input),
        notified: () => {
          u.notified += 1;
        },
      }),
    );
  }

  /**
   * Appends entries to the evidence log the engine writes to, inside the transaction of a change run by
   * `inUnit` (a rollback takes them back: the unit resyncs the log's edge); refused outside a transaction.
   */
  appendEvidence(entries: Parameters<EvidenceLog['append']>[0]): number[] {
    if (!this.db.inTransaction)
      throw new Error('an evidence-log entry is appended only inside a unit of work');
    return this.evidence.append(entries);
  }

  // ---------------------------------------------------------------- queries

  // Every query first commits the open slice of readings (`settled`): what the API shows includes every
  // reading it acknowledged, and the alerts and storm records they made.
  listAlerts: Queries['listAlerts'] = (q) => this.settled().listAlerts(q);
  getAlert: Queries['getAlert'] = (id) => this.settled().getAlert(id);
  listStorms: Queries['listStorms'] = (q) => this.settled().listStorms(q);
  listInspections: Queries['listInspections'] = (q) => this.settled().listInspections(q);
  getInspection: Queries['getInspection'] = (id) => this.settled().getInspection(id);
  violationInspections: Queries['violationInspections'] = (siteId) =>
    this.settled().violationInspections(siteId);
  listExtensions: Queries['listExtensions'] = (q) => this.settled().listExtensions(q);
  /** Commits the open slice of readings, so what is read next includes every reading acknowledged. */
  settle(): void {
    this.commitBefore();
  }

  private settled(): Queries {
    this.commitBefore();
    return this.queries;
  }
  /** The alerts not resolved yet (open or acknowledged): the duties the fleet, Home Assistant and metrics show. */
  readonly openDuties = () => this.listAlerts({ status: ['open', 'acknowledged'] });

  /** A site's unresolved duties of a rule now, and how many of them are overdue (InfluxDB's alert lines). */
  readonly dutiesOf = (siteId: string, rule: string): { open: number; overdue: number } => {
    const open = this.listAlerts({ siteId, rule, status: ['open', 'acknowledged'] });
    return { open: open.length, overdue: open.filter((a) => a.overdue).length };
  };
}
