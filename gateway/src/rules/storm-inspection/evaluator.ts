/**
 * `storm-inspection`: a storm event of `thresholdIn` (0.5 in) or more at a construction site calls for an
 * erosion and sediment control inspection within `dueHours` (24 h). Law 001, maintenance during
 * construction, A(2). One evaluator per rain gauge. How it counts, late and out-of-order data, settling,
 * stale storms and inspections: README.md in this folder.
 */
import type { Reading } from '../../../../shared/src/telemetry.ts';
import type { Effect, Evaluator, RuleContext, RuleInput, StormEvent } from '../types.ts';
import { insertSorted, isErosionInspection } from '../util.ts';
import { coveringInspection, inspectedEffect, inspectionsOf, updateEffect } from './alert.ts';
import {
  type Cfg,
  cfgOf,
  derivationKey,
  RULE,
  STORM_STATE_VERSION,
  type StormState,
  stormAlertKey,
  stormEvent,
} from './events.ts';
import { type Refold, refoldAll, refoldFrom, tipsOf, uncertain } from './fold.ts';
import type { Params } from './params.ts';
import { applyRefold, liveStart, prune, releaseHeld } from './reconcile.ts';
import {
  append,
  contextAt,
  copyWindow,
  type EntryContext,
  emptyWindow,
  entryAt,
  insertAt,
  newestTs,
  nextPos,
  type Pos,
  type StormEntry,
  type StormWindow,
  seek,
} from './window.ts';

export { type StormState, stormAlertKey, thresholdTips } from './events.ts';
export { STORM_MAX_ENTRIES, STORM_MAX_FROZEN } from './reconcile.ts';

export const STORM_MAX_INSPECTIONS = 50;

/** A copy the evaluator may change: what it changes it replaces (chunks, snapshots), never changes in place. */
function copyState(s: StormState): StormState {
  return {
    ...s,
    win: copyWindow(s.win),
    events: s.events.slice(),
    inspections: s.inspections.slice(),
    late: { ...s.late },
  };
}

function rainEntry(r: Reading): StormEntry | undefined {
  const tips = r.values.rainTips;
  if (tips !== undefined) return [r.ts, 0, tips, r.receivedAt];
  const inches = r.values.rainIn;
  if (inches !== undefined) return [r.ts, 1, inches, r.receivedAt];
  return undefined;
}

/**
 * The ts of the last entry whose tips the entry at `at` may have changed: a counter changes the tips of
 * the next counter reading (and the next reading's silence before it); interval rain the running total
 * of every later reading.
 */
function changedUpTo(w: StormWindow, at: Pos): number {
  const e = entryAt(w, at)!;
  if (e[1] === 1) return Number.POSITIVE_INFINITY;
  let p = nextPos(w, at);
  let next = entryAt(w, p);
  let hi = next?.[0] ?? e[0];
  while (next && next[1] !== 0) {
    p = nextPos(w, p);
    next = entryAt(w, p);
  }
  if (next) hi = Math.max(hi, next[0]);
  return hi;
}

/** Places a rain reading in the window; returns where, whether before the newest, and the context before it. */
function place(
  state: StormState,
  entry: StormEntry,
): { at: Pos; late: boolean; before: EntryContext } | null {
  const w = state.win;
  const p = seek(w, entry[0]);
  const there = entryAt(w, p);
  if (there?.[0] === entry[0]) return null;
  if (!there) {
    const before = w.end;
    append(w, entry);
    return { at: seek(w, entry[0]), late: false, before };
  }
  insertAt(w, p, entry);
  const at = seek(w, entry[0]);
  return { at, late: true, before: contextAt(w, at) };
}

/** Derives the events again as far as `change` needs (all of them under other parameters) and reports. */
function reconcile(state: StormState, cfg: Cfg, change: { at: Pos } | null, effects: Effect<typeof RULE>[]) {
  const live = state.events.slice(liveStart(state.events));
  const key = derivationKey(cfg);
  let rf: Refold;
  if (key !== state.derivedWith) {
    rf = refoldAll(state.win, state.carry, live.length, cfg);
    state.derivedWith = key;
  } else if (change)
    rf = refoldFrom(state.win, change.at, changedUpTo(state.win, change.at), live, state.carry, cfg);
  else rf = { from: live.length, to: live.length - 1, segs: [] };
  applyRefold(state, cfg, rf, state.held !== null, effects);
}

/** Whether held alerts may open now, `now` being the arrival time of the input. */
function settles(state: StormState, cfg: Cfg, now: number): boolean {
  return state.held !== null && now >= state.held.lastAt + cfg.settleMs;
}

function wakeOf(state: StormState, cfg: Cfg): { wakeAt?: number } {
  return state.held ? { wakeAt: state.held.lastAt + cfg.settleMs } : {};
}

function readingInput(prev: StormState, r: Reading, ctx: RuleContext<Params>) {
  const effects: Effect<typeof RULE>[] = [];
  const state = copyState(prev);
  const cfg = cfgOf(state, ctx);
  readingInto(state, r, cfg, effects);
  return { state, effects, ...wakeOf(state, cfg) };
}

/**
 * A slice of one gauge's readings with one copy of the state. A run of readings that only extend the
 * window (each newer than every reading before it, none that starts a backlog, no alert held) is placed
 * whole and folded once, from its first reading, with one report of each storm it changed: its record
 * and its alert's update as the run leaves them. The fold from the run's first reading derives again
 * every event a reading of the run could change, so the state is the one its readings give one by one,
 * and so are the alerts and records its reports leave. A run whose fold opens an alert is folded again
 * around its crossing reading (`foldRun`), so the alert opens with the storm as that reading left it.
 * Any other reading (late, a backlog, while an alert is held) is evaluated alone, as `evaluate` does.
 */
function readingsInput(prev: StormState, rs: readonly Reading[], ctx: RuleContext<Params>) {
  const effects: Effect<typeof RULE>[] = [];
  const state = copyState(prev);
  const cfg = cfgOf(state, ctx);
  let run: Run | undefined;
  for (const r of rs) {
    if (r.siteId !== prev.siteId || r.deviceId !== prev.deviceId) continue;
    const entry = rainEntry(r);
    if (cfg.ipt !== undefined && extends_(state, r, entry, cfg)) {
      run ??= { base: copyState(state), readings: [], firstTs: undefined };
      addToRun(state, run, r, entry);
      continue;
    }
    if (run) foldRun(state, cfg, run, effects);
    run = undefined;
    readingInto(state, r, cfg, effects);
  }
  if (run) foldRun(state, cfg, run, effects);
  return { state, effects, ...wakeOf(state, cfg) };
}

/** Readings placed in the window together, to be folded once; `base`: the state before them. */
interface Run {
  base: StormState;
  readings: Reading[];
  /** The ts of the run's first new entry (none: only readings without rain, or repeats). */
  firstTs: number | undefined;
}

/** The readings of a run placed in the window (each only extends it), the state before them kept. */
function runOf(state: StormState, readings: readonly Reading[]): Run {
  const run: Run = { base: copyState(state), readings: [], firstTs: undefined };
  for (const r of readings) addToRun(state, run, r, rainEntry(r));
  return run;
}

/** Places a reading that only extends the window in the open run (not folded yet). */
function addToRun(state: StormState, run: Run, r: Reading, entry: StormEntry | undefined): void {
  run.readings.push(r);
  noteNewest(state, r);
  if (entry && place(state, entry)) run.firstTs ??= entry[0];
}

/**
 * The run's one fold, from its first new entry (none: the newest event may close with time), and prune.
 * When that opens an alert, the run again from the state before it: the readings before the crossing as
 * one run, the crossing reading alone (the alert opens with the storm as that reading left it), the rest
 * as another run. Any other alert it closes or opens: one reading at a time.
 */
function foldRun(state: StormState, cfg: Cfg, run: Run, effects: Effect<typeof RULE>[]): void {
  const own: Effect<typeof RULE>[] = [];
  const rs = run.readings;
  if (rs.length > 1) {
    reconcile(state, cfg, run.firstTs === undefined ? null : { at: seek(state.win, run.firstTs) }, own);
    prune(state, cfg, own);
    if (own.every((e) => e.type === 'storm' || e.type === 'update')) {
      for (const e of own) effects.push(e);
      return;
    }
  }
  Object.assign(state, run.base);
  let crossing = Number.POSITIVE_INFINITY;
  for (const e of own) if (e.type === 'open') crossing = Math.min(crossing, e.at);
  const i = rs.findIndex((r) => r.ts >= crossing);
  if (rs.length <= 1 || i < 0) {
    for (const r of rs) readingInto(state, r, cfg, effects);
    return;
  }
  if (i > 0) foldRun(state, cfg, runOf(state, rs.slice(0, i)), effects);
  readingInto(state, rs[i]!, cfg, effects);
  if (i + 1 < rs.length) foldRun(state, cfg, runOf(state, rs.slice(i + 1)), effects);
}

/** Whether `r` only extends the window: newer than every reading kept, no backlog, no alert held. */
function extends_(state: StormState, r: Reading, entry: StormEntry | undefined, cfg: Cfg): boolean {
  if (state.held !== null) return false;
  if (!entry) return true;
  if (state.base.ts !== null && r.ts <= state.base.ts) return false;
  const newest = newestTs(state.win);
  if (newest !== null && r.ts < newest) return false;
  if (cfg.settleMs === 0 || r.receivedAt - r.ts <= cfg.settleMs) return true;
  const before = state.win.end;
  return !uncertain(before, entry, tipsOf(before, entry, cfg.ipt!), cfg.gapMs);
}

function noteNewest(state: StormState, r: Reading): void {
  if (state.newestTs === null || r.ts >= state.newestTs) {
    state.newestTs = r.ts;
    state.newestDelay = Math.max(0, r.receivedAt - r.ts);
  }
  state.horizon = Math.max(state.horizon ?? r.ts, r.ts);
}

/** One reading into a state the caller copied. */
function readingInto(state: StormState, r: Reading, cfg: Cfg, effects: Effect<typeof RULE>[]): void {
  noteNewest(state, r);
  const entry = rainEntry(r);
  let change: ReturnType<typeof place> = null;
  if (entry && cfg.ipt !== undefined) {
    if (state.base.ts !== null && r.ts <= state.base.ts) {
      state.late.dropped++;
      state.late.lastTs = r.ts;
    } else change = place(state, entry);
  }
  if (cfg.ipt === undefined) return;
  if (settles(state, cfg, r.receivedAt)) {
    state.held = null;
    releaseHeld(state, cfg, effects);
  }
  if (change && cfg.settleMs > 0 && catchingUp(r, entry!, change, cfg))
    state.held = { lastAt: Math.max(state.held?.lastAt ?? r.receivedAt, r.receivedAt) };
  reconcile(state, cfg, change, effects);
  prune(state, cfg, effects);
}

/** A reading out of order, or one arriving late with several tips after a silence: a backlog is coming in. */
function catchingUp(r: Reading, e: StormEntry, change: { late: boolean; before: EntryContext }, cfg: Cfg) {
  if (change.late) return true;
  if (r.receivedAt - r.ts <= cfg.settleMs) return false;
  return uncertain(change.before, e, tipsOf(change.before, e, cfg.ipt!), cfg.gapMs);
}

function tickInput(prev: StormState, now: number, ctx: RuleContext<Params>) {
  const effects: Effect<typeof RULE>[] = [];
  const cfg = cfgOf(prev, ctx);
  const reach = now - prev.newestDelay;
  const release = settles(prev, cfg, now);
  // Only a tick that closes an event (or opens held alerts) changes anything: the state is not rewritten
  // every minute.
  const closes =
    (prev.horizon === null || reach > prev.horizon) &&
    prev.events.some((e) => !e.frozen && !e.closed && reach - e.end >= cfg.gapMs);
  if (!release && !closes) return { state: prev, effects, ...wakeOf(prev, cfg) };
  const state = copyState(prev);
  if (release) {
    state.held = null;
    releaseHeld(state, cfg, effects);
  }
  if (closes) {
    state.horizon = reach;
    if (cfg.ipt !== undefined) reconcile(state, cfg, null, effects);
  }
  return { state, effects, ...wakeOf(state, cfg) };
}

function inspectionInput(
  prev: StormState,
  input: Extract<RuleInput, { type: 'inspection' }>,
  ctx: RuleContext<Params>,
) {
  const effects: Effect<typeof RULE>[] = [];
  if (input.siteId !== prev.siteId || !isErosionInspection(input.kind)) return { state: prev, effects };
  if (prev.inspections.some((i) => i.id === input.id)) return { state: prev, effects };
  const state = copyState(prev);
  const cfg = cfgOf(state, ctx);
  const insp = { at: input.at, id: input.id, kind: input.kind, inspector: input.inspector };
  insertSorted(state.inspections, insp, (i) => i.at);
  if (state.inspections.length > STORM_MAX_INSPECTIONS)
    state.inspections.splice(0, state.inspections.length - STORM_MAX_INSPECTIONS);
  // Each open storm alert: closed by the inspection that follows its storm (after its last tip, the storm
  // ended); one made while it still rained, or after the last tip of a storm that may still grow, is
  // shown with the storm (an update) and the duty stays open.
  state.events = state.events
    .map((s) => {
      if (s.alert !== 'open' || s.thresholdAt === null) return s;
      const key = s.alertKey ?? stormAlertKey(s.id);
      const covering = coveringInspection(state, s);
      if (covering) {
        effects.push(inspectedEffect(s, cfg, key, covering));
        return { ...s, alert: 'closed' as const };
      }
      if (insp.at >= s.start) effects.push(updateEffect(s, cfg, key, insp.at, inspectionsOf(state, cfg, s)));
      return s;
    })
    .filter((s) => !(s.frozen && s.alert !== 'open'));
  return { state, effects };
}

export const stormEvaluator: Evaluator<StormState, typeof RULE, Params> = {
  rule: RULE,
  init(ctx: RuleContext<Params>, deviceId?: string): StormState {
    if (deviceId === undefined) throw new Error(`${RULE} is a per-device rule: pass the deviceId`);
    const base: EntryContext = { counter: null, sumN: 0, ts: null };
    const state: StormState = {
      v: STORM_STATE_VERSION,
      siteId: ctx.site.id,
      deviceId,
      win: emptyWindow(base),
      base,
      carry: null,
      newestTs: null,
      newestDelay: 0,
      horizon: null,
      events: [],
      derivedWith: '',
      inspections: [],
      late: { dropped: 0, lastTs: null },
      held: null,
    };
    state.derivedWith = derivationKey(cfgOf(state, ctx));
    return state;
  },

  evaluateReadings: readingsInput,

  evaluate(prev: StormState, input: RuleInput, ctx: RuleContext<Params>) {
    switch (input.type) {
      case 'reading': {
        const r = input.reading;
        if (r.siteId !== prev.siteId || r.deviceId !== prev.deviceId) return { state: prev, effects: [] };
        return readingInput(prev, r, ctx);
      }
      case 'tick':
        return tickInput(prev, input.now, ctx);
      case 'inspection':
        return inspectionInput(prev, input, ctx);
      case 'alert-closed': {
        const idx = prev.events.findIndex((s) => s.alertKey === input.key);
        if (idx < 0) return { state: prev, effects: [] };
        const state = copyState(prev);
        const s = state.events[idx]!;
        if (s.frozen) state.events.splice(idx, 1);
        else state.events[idx] = { ...s, alert: 'closed' };
        return { state, effects: [] };
      }
      default:
        return { state: prev, effects: [] };
    }
  },
};

/** The storms currently derived, for tests and diagnostics. */
export function stormEventsOf(state: StormState, ctx: RuleContext<Params>): StormEvent[] {
  const cfg = cfgOf(state, ctx);
  return state.events.filter((s) => !s.frozen).map((s) => stormEvent(s, cfg));
}
