/**
 * The rules bound to each site, driven by the engine: which bindings an input reaches, their evaluation
 * (state from `ruleStates.ts`, staged in the unit), and their effects turned into lifecycle changes and
 * storm records.
 */
import type { Reading } from '../../../shared/src/telemetry.ts';
import type { Config, SiteConfig } from '../config/schema.ts';
import type { Log } from '../pipeline.ts';
import { type RuleId, ruleContext, type SiteRule } from '../rules/index.ts';
import { evaluateSlice } from '../rules/slice.ts';
import type { Effect, Evaluation, RuleContext, RuleInput } from '../rules/types.ts';
import { type CauseSource, causeOf } from './cause.ts';
import type { Lifecycle } from './lifecycle.ts';
import type { EngineMetrics } from './metrics.ts';
import type { Queries } from './queries.ts';
import type { RuleStates } from './ruleStates.ts';
import type { AlertStores } from './stores/index.ts';
import type { AlertRow } from './types.ts';
import type { Unit } from './unit.ts';

interface SiteIndex {
  site: SiteConfig;
  ctx: RuleContext;
  all: SiteRule[];
  byDevice: Map<string, SiteRule[]>;
}

/** Effects of one binding, to apply in order. */
export interface RuleWork {
  rule: SiteRule;
  effects: Effect<RuleId>[];
}

export interface RuleRunnerOptions {
  config: Config;
  /** The sites bound at start (the live catalogue's). */
  sites: readonly SiteConfig[];
  evaluatorsFor: (site: SiteConfig) => SiteRule[];
  states: RuleStates;
  stores: AlertStores;
  lifecycle: Lifecycle;
  queries: Queries;
  metrics: EngineMetrics;
  log: Log;
}

export class RuleRunner {
  private readonly sites = new Map<string, SiteIndex>();

  constructor(private readonly o: RuleRunnerOptions) {
    for (const site of o.sites) this.bindSite(site);
  }

  /**
   * Binds a site's rules (again, when the site changed: a device added, retired or recalibrated, a
   * parameter edited). The bindings' states are kept by key, so a rule that stays keeps its state.
   */
  bindSite(site: SiteConfig): void {
    const all = this.o.evaluatorsFor(site);
    const seen = new Set<string>();
    for (const r of all) {
      const key = this.o.states.keyOf(r);
      if (seen.has(key))
        throw new Error(
          `two evaluators for ${r.stateKey} on site ${site.id}${r.deviceId ? `/${r.deviceId}` : ''}`,
        );
      seen.add(key);
    }
    this.sites.set(site.id, {
      site,
      ctx: ruleContext(site, this.o.config.timezone),
      all,
      byDevice: new Map(),
    });
  }

  hasSite(siteId: string): boolean {
    return this.sites.has(siteId);
  }

  /**
   * Evaluates readings (in source-time order per device), staging the states in the unit; returns the
   * effects to apply. Each binding is given its readings of the batch as one slice (`evaluateSlice`), in
   * order; bindings in the order their first reading came. Readings of a site not in the configuration
   * are counted and skipped.
   */
  evaluateReadings(u: Unit, readings: readonly Reading[]): RuleWork[] {
    const slices = new Map<SiteRule, Reading[]>();
    for (const reading of readings) {
      const idx = this.sites.get(reading.siteId);
      if (!idx) {
        this.o.metrics.unknownSite.inc();
        continue;
      }
      for (const rule of this.rulesFor(idx, reading.deviceId)) {
        const list = slices.get(rule);
        if (list) list.push(reading);
        else slices.set(rule, [reading]);
      }
    }
    const work: RuleWork[] = [];
    for (const [rule, rs] of slices) {
      const effects = this.evaluateMany(u, rule, rs);
      if (effects.length > 0) work.push({ rule, effects });
    }
    return work;
  }

  /** Gives an input to every binding of every site (a clock tick). */
  feedAll(u: Unit, input: RuleInput): void {
    for (const idx of this.sites.values())
      for (const rule of idx.all) this.apply(u, rule, this.evaluate(u, rule, input), input);
  }

  /** Gives an input to every binding of one site (an inspection). */
  feedSite(u: Unit, siteId: string, input: RuleInput, only?: (rule: SiteRule) => boolean): void {
    const idx = this.sites.get(siteId);
    if (!idx) return;
    for (const rule of idx.all)
      if (!only || only(rule)) this.apply(u, rule, this.evaluate(u, rule, input), input);
  }

  /** Tells the evaluators of an alert's rule that it was closed from outside their own effects. */
  feedClosed(u: Unit, row: AlertRow, how: 'manual' | 'auto', at: number): void {
    const idx = this.sites.get(row.site_id);
    if (!idx) return;
    const input: RuleInput = { type: 'alert-closed', key: row.key, at, how };
    for (const rule of idx.all) {
      if (!rule.rules.includes(row.rule)) continue;
      if (rule.deviceId !== undefined && rule.deviceId !== row.device_id) continue;
      this.apply(u, rule, this.evaluate(u, rule, input), input);
    }
  }

  /** Writes and logs the unit's storm records, each as it is at the end of the unit (inside its transaction). */
  writeStorms(u: Unit): void {
    const { storms } = this.o.stores;
    for (const event of u.storms.values()) {
      storms.upsert(event, u.now);
      if (u.live)
        u.events.push({ type: 'storm', storm: this.o.queries.storm(storms.byId(event.id)!, u.now) });
    }
    u.storms.clear();
  }

  /**
   * Turns a binding's effects into lifecycle changes and storm records, in order; `source` is what the
   * rule was given (a resolution's cause is drawn from it).
   */
  apply(u: Unit, rule: SiteRule, effects: readonly Effect<RuleId>[], source: CauseSource): void {
    const { alerts } = this.o.stores;
    const { lifecycle, metrics: m, log } = this.o;
    for (const e of effects) {
      u.effects++;
      switch (e.type) {
        case 'open': {
          if (e.siteId !== rule.siteId)
            log.warn({ rule: e.rule, key: e.key, siteId: e.siteId }, 'open effect for another site');
          const existing = alerts.byKey(rule.siteId, e.key);
          if (existing)
            lifecycle.update(u, existing, {
              at: e.at,
              dueAt: e.dueAt,
              message: e.message,
              evidence: e.evidence,
            });
          else lifecycle.raise(u, rule, e);
          break;
        }
        case 'update': {
          const row = alerts.byKey(rule.siteId, e.key);
          if (!row) {
            m.ignored.inc({ type: 'update', reason: 'unknown_key' });
            log.debug({ rule: rule.stateKey, key: e.key }, 'update for an unknown alert ignored');
          } else lifecycle.update(u, row, e);
          break;
        }
        case 'resolve': {
          const row = alerts.byKey(rule.siteId, e.key);
          if (!row || row.status === 'resolved') {
            m.ignored.inc({ type: 'resolve', reason: row ? 'resolved' : 'unknown_key' });
          } else {
            lifecycle.resolve(u, row, {
              how: 'auto',
              by: 'system',
              at: e.at,
              sourceAt: e.at,
              message: e.message,
              evidence: e.evidence,
              cause: causeOf(source, { device_id: row.device_id ?? rule.deviceId ?? null }, e.at, e.evidence),
            });
          }
          break;
        }
        case 'storm':
          // Written at the end of the unit (`writeStorms`): a storm that grows by many readings in one
          // transaction (an import's slice) is one new version, not one per reading.
          u.storms.delete(e.event.id);
          u.storms.set(e.event.id, e.event);
          break;
      }
    }
  }

  private rulesFor(idx: SiteIndex, deviceId: string): SiteRule[] {
    let list = idx.byDevice.get(deviceId);
    if (!list) {
      list = idx.all.filter((r) => r.deviceId === undefined || r.deviceId === deviceId);
      idx.byDevice.set(deviceId, list);
    }
    return list;
  }

  /** A binding's slice of readings; when the slice fails, one by one, so only the failing readings are skipped. */
  private evaluateMany(u: Unit, rule: SiteRule, rs: readonly Reading[]): Effect<RuleId>[] {
    if (rs.length === 1) return this.evaluate(u, rule, { type: 'reading', reading: rs[0]! });
    const { states } = this.o;
    const ctx = this.sites.get(rule.siteId)!.ctx;
    const prev = states.get(u.staged, rule, ctx);
    let out: Evaluation<unknown, RuleId>;
    try {
      out = evaluateSlice(rule.evaluator, prev, rs, ctx);
    } catch {
      // Told by `evaluate` for the reading that fails, which alone is skipped.
      const effects: Effect<RuleId>[] = [];
      for (const reading of rs)
        for (const e of this.evaluate(u, rule, { type: 'reading', reading })) effects.push(e);
      return effects;
    }
    if (out.state !== prev) u.staged.set(states.keyOf(rule), { rule, state: out.state });
    if (out.wakeAt !== undefined) u.armed(out.wakeAt);
    return out.effects;
  }

  private evaluate(u: Unit, rule: SiteRule, input: RuleInput): Effect<RuleId>[] {
    const { states, metrics: m, log } = this.o;
    try {
      const ctx = this.sites.get(rule.siteId)!.ctx;
      const prev = states.get(u.staged, rule, ctx);
      const out = rule.evaluator.evaluate(prev, input, ctx);
      if (out.state !== prev) u.staged.set(states.keyOf(rule), { rule, state: out.state });
      if (out.wakeAt !== undefined) u.armed(out.wakeAt);
      return out.effects;
    } catch (err) {
      m.ruleErrors.inc({ rule: rule.stateKey });
      log.error(
        {
          rule: rule.stateKey,
          siteId: rule.siteId,
          deviceId: rule.deviceId,
          input: input.type,
          err: String(err),
        },
        'rule evaluator failed; input skipped for this rule',
      );
      return [];
    }
  }
}
