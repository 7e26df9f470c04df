/**
 * `storm-inspection`: a storm event of `thresholdIn` (0.5 in) or more at a construction site calls for an
 * erosion and sediment control inspection within `dueHours` (24 h). Law 001, maintenance during
 * construction, A(2). One evaluator per rain gauge.
 *
 * How it counts (PRODUCT.md, "Rules in detail"):
 * - Counting is in tips; inches are derived once (tips x inchesPerTip). The threshold in tips is
 *   ceil(thresholdIn / inchesPerTip - 1e-9): 50 tips of 0.01 in; 64 tips of 0.2 mm (63 are 0.496 in).
 * - `rainTips` is a cumulative counter. The increment of a reading is its value minus the previous
 *   counter reading in SOURCE-time order; a drop is a reboot, so the new value is the tips since the
 *   reset (never negative rain). The earliest counter reading is the baseline: its value is not rain.
 * - `rainIn` is rain since the last report. It is converted to tips by rounding the running total of
 *   inches to the nearest tip (so a gauge that reports exact multiples of its tip loses nothing, and one
 *   that reports rounded inches never drifts by more than half a tip). If a reading carries both,
 *   the counter is used.
 * - Tips are timed at the reading that reports them. When a reading reports more than one tip after a
 *   silence of `interEventHours` or more, the tips could have fallen earlier, even in another storm: the
 *   event is still counted (an inspection too many beats one missed) and the alert evidence says
 *   `timingUncertain`.
 * - Events: tips separated by a dry period of at least `interEventHours` (exactly 6 h splits; 5 h 59 min
 *   does not) are two events. start = first tip, end = last tip. The alert opens the moment the running
 *   total reaches the threshold (`at` = source time of that reading). Due: `dueFrom: end` (default) =
 *   last tip + dueHours, moving while it rains ('update' effects); `dueFrom: threshold` = crossing + dueHours.
 * - An event is `closed` once a later reading or a tick shows that interEventHours passed since its last
 *   tip. A tick is arrival time, so it counts as `now - delay`, where delay is how late the gauge's newest
 *   reading arrived (a gauge draining a backlog cannot close a storm by the wall clock). If a backlog still
 *   shows that it rained in that "dry" period, the event grows again and its record says closed: false
 *   until the dry period has really passed. A gauge should send a heartbeat (its counter, unchanged) more
 *   often than its silentAfterMinutes (60 by default) so dry periods are proven by data.
 *
 * Late and out-of-order data: the evaluator keeps the gauge's recent readings (the last 14 days of
 * source time, at most 5000 readings) sorted by source time and derives the events from them on every
 * input, so readings in any order give the same events as the same readings in order. A reading that
 * lands inside the window is counted where it belongs. A reading older than the window (older than the
 * oldest reading kept) is not counted: it is dropped and tallied in `state.late`; the stored telemetry
 * still has it for a recompute. Duplicates (the same source ts) count once: the first one wins.
 *
 * Because events are derived from the data, late data can change an event's start (a late tip before
 * it), merge two events (a late tip in the gap) or move tips (a late counter reading between two
 * others). An event's id and alert key name its start (`${siteId}:${deviceId}:${start}`), so when the
 * start changes the old record gets a last 'storm' effect with `supersededBy` set, its open alert is
 * resolved with evidence `{ superseded: true, supersededBy }`, and the successor opens its own alert. An
 * alert that was already closed (inspected, or resolved by a person) passes that on to its successor,
 * which is opened and resolved at once. In-order data never does this.
 *
 * Stale storms: a storm that arrives late (even days late) still gets its storm record and its alert,
 * with `at` and `dueAt` in source time; it may be overdue on arrival (the engine flags that). The evidence
 * carries `crossingReceivedAt`, when the crossing reading reached the gateway. The inspection duty exists
 * whether or not we heard of the rain in time.
 *
 * Inspections: an 'inspection' input for the site (any kind but 'annual' and 'cleanout', see ../util.ts)
 * at or after an event's threshold crossing resolves its alert, with onTime = inspection <= dueAt.
 * Inspections are remembered (the last 50), so a storm that qualifies later through late data and was
 * already inspected opens and resolves at once.
 *
 * Alerts are raised only for active construction sites; elsewhere the storm records are still produced.
 */
import { deviceState } from '../state.ts';
import type { Effect, Evaluator, RuleContext, RuleInput, StormEvent } from '../types.ts';
import { formatLocal, HOUR, insertSorted, isErosionInspection, lowerBound } from '../util.ts';
import { coveringInspection, evidence, inspectedEffect, message, openEffect } from './alert.ts';
import {
  type Cfg,
  cfgOf,
  changed,
  eventId,
  increments,
  RULE,
  type StormEntry,
  type StormSnapshot,
  type StormState,
  segments,
  snapshot,
  stormAlertKey,
  stormEvent,
  successorOf,
  windowMs,
} from './events.ts';

export { type StormState, stormAlertKey, thresholdTips } from './events.ts';

export const STORM_MAX_ENTRIES = 5000;
/** Events pruned from the window whose alert is still open, kept so an inspection can still resolve them. */
export const STORM_MAX_FROZEN = 100;
export const STORM_MAX_INSPECTIONS = 50;

/** Derives the events from the window and reports every difference from the last report. */
function reconcile(state: StormState, cfg: Cfg, effects: Effect<typeof RULE>[]): void {
  if (cfg.ipt === undefined) return;
  const { incs } = increments(state.win, state.base, cfg.ipt, cfg.gapMs);
  const current = segments(state.carry, incs, cfg).map((s) => snapshot(s, cfg, state.horizon));
  const live = state.events.filter((s) => !s.frozen);
  const frozen = state.events.filter((s) => s.frozen);
  const prevById = new Map(live.map((s) => [s.id, s]));
  const curIds = new Set(current.map((c) => c.id));
  /** Alert status a successor inherits from events it replaced. */
  const inherited = new Map<string, { from: string; how: 'closed' }>();

  for (const old of live) {
    if (curIds.has(old.id)) continue;
    const succ = successorOf(old, current, cfg.gapMs);
    effects.push({ type: 'storm', event: stormEvent(old, cfg, succ?.id ?? '') });
    if (old.alert === 'closed' && succ)
      inherited.set(succ.id, { from: old.alertKey ?? stormAlertKey(old.id), how: 'closed' });
    if (old.alert === 'open') {
      const succKey = succ && succ.thresholdAt !== null ? stormAlertKey(succ.id) : undefined;
      effects.push({
        type: 'resolve',
        key: old.alertKey ?? stormAlertKey(old.id),
        at: succ ? succ.end : old.end,
        message: succ
          ? `Superseded: late data changed this storm at rain gauge ${cfg.label}; it continues as the storm starting ${formatLocal(succ.start, cfg.tz)}.`
          : `Withdrawn: late data at rain gauge ${cfg.label} leaves no storm here.`,
        evidence: { superseded: true, supersededBy: succKey, eventId: old.id, successorEventId: succ?.id },
      });
    }
  }

  for (const c of current) {
    const prev = prevById.get(c.id);
    c.alert = prev?.alert ?? 'none';
    c.alertKey = prev?.alertKey ?? null;
    if (!prev || changed(prev, c)) effects.push({ type: 'storm', event: stormEvent(c, cfg) });
    if (!cfg.alerts) continue;
    const qualified = c.thresholdAt !== null;
    if (qualified && (c.alert === 'none' || c.alert === 'withdrawn')) {
      // A storm withdrawn by late data that qualifies again gets a fresh key: the engine never reopens a
      // resolved alert.
      c.alertKey =
        c.alert === 'withdrawn' ? `${stormAlertKey(c.id)}:again:${c.thresholdAt}` : stormAlertKey(c.id);
    }
    const key = c.alertKey ?? stormAlertKey(c.id);
    if (qualified && (c.alert === 'none' || c.alert === 'withdrawn')) {
      const ev = evidence(c, cfg);
      if (c.alert === 'withdrawn') ev.reopened = true;
      effects.push(openEffect(c, cfg, key, ev));
      c.alert = 'open';
      const insp = coveringInspection(state, c.thresholdAt!);
      const inh = inherited.get(c.id);
      if (insp) {
        effects.push(inspectedEffect(c, cfg, key, insp));
        c.alert = 'closed';
      } else if (inh) {
        effects.push({
          type: 'resolve',
          key,
          at: c.thresholdAt!,
          message: `Closed with ${inh.from}, which late data merged into this storm.`,
          evidence: { inheritedFrom: inh.from, eventId: c.id },
        });
        c.alert = 'closed';
      }
    } else if (qualified && c.alert === 'open' && prev && prev.thresholdAt !== c.thresholdAt) {
      // Late data moved the crossing: an 'open' for the existing key updates it and carries the new
      // `at` (the source time the condition began), so the engine can correct the raised time.
      effects.push(openEffect(c, cfg, key, evidence(c, cfg)));
    } else if (qualified && c.alert === 'open' && prev) {
      const closing = c.closed && !prev.closed;
      if (prev.dueAt !== c.dueAt || closing) {
        effects.push({
          type: 'update',
          key,
          at: closing ? c.end + cfg.gapMs : c.end,
          dueAt: c.dueAt!,
          message: message(c, cfg),
          evidence: evidence(c, cfg),
        });
      }
    } else if (!qualified && c.alert === 'open') {
      effects.push({
        type: 'resolve',
        key,
        at: c.end,
        message: `Withdrawn: late data at rain gauge ${cfg.label} shows this storm stayed below ${cfg.thresholdIn} in.`,
        evidence: { withdrawn: true, ...evidence(c, cfg) },
      });
      c.alert = 'withdrawn';
    }
  }
  state.events = [...frozen, ...current];
}

/** Moves readings older than the window into `base`/`carry`, and drops final events. */
function prune(state: StormState, cfg: Cfg): void {
  if (cfg.ipt === undefined || state.newestTs === null) return;
  const win = state.win;
  let k = lowerBound(win, state.newestTs - windowMs(cfg), (e) => e[0]);
  if (win.length - k > STORM_MAX_ENTRIES) k = win.length - STORM_MAX_ENTRIES;
  if (k <= 0) return;
  const pruned = win.slice(0, k);
  state.win = win.slice(k);
  const { incs, base } = increments(pruned, state.base, cfg.ipt, cfg.gapMs);
  const segs = segments(state.carry, incs, cfg);
  state.base = base;
  const last = segs.at(-1);
  state.carry = last && base.ts !== null && base.ts - last.end < cfg.gapMs ? last : null;
  const finalIds = new Set(segs.filter((s) => s !== state.carry).map((s) => eventId(cfg, s.start)));
  const kept: StormSnapshot[] = [];
  for (const s of state.events) {
    if (!finalIds.has(s.id)) kept.push(s);
    else if (s.alert === 'open') kept.push({ ...s, frozen: true });
  }
  const frozen = kept.filter((s) => s.frozen);
  const drop = new Set(frozen.slice(0, Math.max(0, frozen.length - STORM_MAX_FROZEN)));
  state.events = kept.filter((s) => !drop.has(s));
}

/** A copy the evaluator may change: readings (immutable tuples) are shared, everything else copied. */
function copyState(s: StormState): StormState {
  return {
    ...s,
    win: s.win.slice(),
    base: { ...s.base },
    carry: s.carry ? { ...s.carry } : null,
    events: s.events.map((e) => ({ ...e })),
    inspections: s.inspections.slice(),
    late: { ...s.late },
  };
}

function rainEntry(r: { ts: number; receivedAt: number; values: Record<string, number | undefined> }) {
  const tips = r.values.rainTips;
  if (tips !== undefined) return [r.ts, 0, tips, r.receivedAt] as StormEntry;
  const inches = r.values.rainIn;
  if (inches !== undefined) return [r.ts, 1, inches, r.receivedAt] as StormEntry;
  return undefined;
}

export const stormEvaluator: Evaluator<StormState, typeof RULE> = {
  rule: RULE,
  init(ctx: RuleContext, deviceId?: string): StormState {
    return deviceState(RULE, ctx, deviceId, {
      win: [],
      base: { counter: null, ts: null, residueIn: 0 },
      carry: null,
      newestTs: null,
      newestDelay: 0,
      horizon: null,
      events: [],
      inspections: [],
      late: { dropped: 0, lastTs: null },
    });
  },

  evaluate(prev: StormState, input: RuleInput, ctx: RuleContext) {
    const effects: Effect<typeof RULE>[] = [];
    switch (input.type) {
      case 'reading': {
        const r = input.reading;
        if (r.siteId !== prev.siteId || r.deviceId !== prev.deviceId) return { state: prev, effects };
        const state = copyState(prev);
        const cfg = cfgOf(state, ctx);
        if (state.newestTs === null || r.ts >= state.newestTs) {
          state.newestTs = r.ts;
          state.newestDelay = Math.max(0, r.receivedAt - r.ts);
        }
        state.horizon = Math.max(state.horizon ?? r.ts, r.ts);
        const entry = rainEntry(r);
        if (entry && cfg.ipt !== undefined) {
          if (state.base.ts !== null && r.ts <= state.base.ts) {
            state.late.dropped++;
            state.late.lastTs = r.ts;
          } else {
            const i = lowerBound(state.win, r.ts, (e) => e[0]);
            if (state.win[i]?.[0] !== r.ts) insertSorted(state.win, entry, (e) => e[0]);
          }
        }
        reconcile(state, cfg, effects);
        prune(state, cfg);
        return { state, effects };
      }
      case 'tick': {
        const reach = input.now - prev.newestDelay;
        if (prev.horizon !== null && reach <= prev.horizon) return { state: prev, effects };
        // Only a tick that closes an event changes anything (the state is not rewritten every minute).
        const gapMs = ctx.site.storm.interEventHours * HOUR;
        if (!prev.events.some((e) => !e.frozen && !e.closed && reach - e.end >= gapMs))
          return { state: prev, effects };
        const state = copyState(prev);
        state.horizon = reach;
        reconcile(state, cfgOf(state, ctx), effects);
        return { state, effects };
      }
      case 'inspection': {
        if (input.siteId !== prev.siteId || !isErosionInspection(input.kind)) return { state: prev, effects };
        if (prev.inspections.some((i) => i.id === input.id)) return { state: prev, effects };
        const state = copyState(prev);
        const cfg = cfgOf(state, ctx);
        const insp = { at: input.at, id: input.id, kind: input.kind, inspector: input.inspector };
        insertSorted(state.inspections, insp, (i) => i.at);
        if (state.inspections.length > STORM_MAX_INSPECTIONS)
          state.inspections.splice(0, state.inspections.length - STORM_MAX_INSPECTIONS);
        for (const s of state.events) {
          if (s.alert !== 'open' || s.thresholdAt === null || s.thresholdAt > insp.at) continue;
          effects.push(inspectedEffect(s, cfg, s.alertKey ?? stormAlertKey(s.id), insp));
          s.alert = 'closed';
        }
        state.events = state.events.filter((s) => !(s.frozen && s.alert !== 'open'));
        return { state, effects };
      }
      case 'alert-closed': {
        const idx = prev.events.findIndex((s) => s.alertKey === input.key);
        if (idx < 0) return { state: prev, effects };
        const state = copyState(prev);
        const s = state.events[idx]!;
        s.alert = 'closed';
        if (s.frozen) state.events.splice(idx, 1);
        return { state, effects };
      }
    }
  },
};

/** The storms currently derived, for tests and diagnostics. */
export function stormEventsOf(state: StormState, ctx: RuleContext): StormEvent[] {
  const cfg = cfgOf(state, ctx);
  return state.events.filter((s) => !s.frozen).map((s) => stormEvent(s, cfg));
}
