/**
 * Reporting what a refold (`fold.ts`) changed: the events it replaced that are gone get a last record
 * with `supersededBy` (and their open alert a `resolve`), the events that are new or changed get their
 * record, and their alerts open, move or are withdrawn. Only the events the refold replaced are looked
 * at, and the newest event, which a later reading or tick may close.
 *
 * Held alerts: while the gauge delivers late data (`evaluator.ts`), a storm that qualifies is recorded
 * but its alert is not opened yet (`hold`); `releaseHeld` opens them once the data has settled.
 */
import type { Effect } from '../types.ts';
import { formatLocal } from '../util.ts';
import {
  coveringInspection,
  evidence,
  inspectedEffect,
  inspectionsOf,
  openEffect,
  updateEffect,
} from './alert.ts';
import {
  type Cfg,
  changed,
  eventId,
  type RULE,
  type Segment,
  type StormSnapshot,
  type StormState,
  snapshot,
  stormAlertKey,
  stormEvent,
  successorOf,
  windowMs,
} from './events.ts';
import { addTips, type Refold, rainOf, segmentOf, uncertain } from './fold.ts';
import { after, entryAt, firstPos, shift } from './window.ts';

/** Readings the window keeps at most (the 14 days are the other bound). */
export const STORM_MAX_ENTRIES = 5000;
/** Events pruned from the window whose alert is still open, kept so an inspection can still resolve them. */
export const STORM_MAX_FROZEN = 100;

/** Where the events of the window begin in `state.events` (after the frozen ones). */
export function liveStart(events: readonly StormSnapshot[]): number {
  let i = 0;
  while (i < events.length && events[i]!.frozen) i++;
  return i;
}

/** Applies a refold to `state` (a copy): new events list, and the effects of what changed. */
export function applyRefold(
  state: StormState,
  cfg: Cfg,
  rf: Refold,
  hold: boolean,
  effects: Effect<typeof RULE>[],
): void {
  const k = liveStart(state.events);
  const frozen = state.events.slice(0, k);
  const live = state.events.slice(k);
  const replaced = live.slice(rf.from, rf.to + 1);
  const current = rf.segs.map((s) => snapshot(s, cfg, state.horizon));
  const all = [...live.slice(0, rf.from), ...current, ...live.slice(rf.to + 1)];
  const diffed: Array<{ c: StormSnapshot; prev: StormSnapshot | undefined }> = [];
  const prevById = new Map(replaced.map((s) => [s.id, s]));
  for (const c of current) diffed.push({ c, prev: prevById.get(c.id) });
  // The newest event closes with time even where the change did not reach.
  const last = all.at(-1);
  if (last && !current.includes(last)) {
    const again = snapshot(segmentOf(last, cfg), cfg, state.horizon);
    if (again.closed !== last.closed) {
      again.alert = last.alert;
      again.alertKey = last.alertKey;
      all[all.length - 1] = again;
      diffed.push({ c: again, prev: last });
    }
  }
  const curIds = new Set(current.map((c) => c.id));
  /** Alert status a successor inherits from events it replaced. */
  const inherited = new Map<string, string>();
  for (const old of replaced) {
    if (curIds.has(old.id)) continue;
    const succ = successorOf(old, all, cfg.gapMs);
    effects.push({ type: 'storm', event: stormEvent(old, cfg, succ?.id ?? '') });
    const closedKey = old.alert === 'closed' ? (old.alertKey ?? stormAlertKey(old.id)) : old.inherit;
    if (closedKey !== undefined && succ) inherited.set(succ.id, closedKey);
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
  for (const { c, prev } of diffed) {
    c.alert = prev?.alert ?? 'none';
    c.alertKey = prev?.alertKey ?? null;
    if (prev?.inherit !== undefined) c.inherit = prev.inherit;
    if (!prev || changed(prev, c)) effects.push({ type: 'storm', event: stormEvent(c, cfg) });
    if (cfg.alerts) alertOf(state, cfg, c, prev, inherited.get(c.id), hold, effects);
  }
  state.events = [...frozen, ...all];
}

/** The alert of an event the refold gave (`prev`: as it was), as the reference rule keeps it. */
function alertOf(
  state: StormState,
  cfg: Cfg,
  c: StormSnapshot,
  prev: StormSnapshot | undefined,
  inherit: string | undefined,
  hold: boolean,
  effects: Effect<typeof RULE>[],
): void {
  const qualified = c.thresholdAt !== null;
  if (qualified && (c.alert === 'none' || c.alert === 'withdrawn')) {
    if (inherit !== undefined) c.inherit = inherit;
    if (!hold) openHeld(state, cfg, c, effects);
  } else if (qualified && c.alert === 'open' && prev && prev.thresholdAt !== c.thresholdAt) {
    // Late data moved the crossing: an 'open' for the existing key updates it and carries the new
    // `at` (the source time the condition began), so the engine can correct the raised time.
    const insps = inspectionsOf(state, cfg, c);
    effects.push(openEffect(c, cfg, c.alertKey ?? stormAlertKey(c.id), evidence(c, cfg, insps), insps));
    closeIfInspected(state, cfg, c, effects);
  } else if (qualified && c.alert === 'open' && prev) {
    // The alert follows its storm's record: its due time, and the total and end its message tells.
    const closing = c.closed && !prev.closed;
    if (changed(prev, c)) {
      const key = c.alertKey ?? stormAlertKey(c.id);
      effects.push(
        updateEffect(c, cfg, key, closing ? c.end + cfg.gapMs : c.end, inspectionsOf(state, cfg, c)),
      );
    }
    // The storm has ended (or late data moved its last tip before an inspection): the first inspection
    // after its last tip meets its duty now.
    closeIfInspected(state, cfg, c, effects);
  } else if (!qualified && c.alert === 'open') {
    effects.push({
      type: 'resolve',
      key: c.alertKey ?? stormAlertKey(c.id),
      at: c.end,
      message: `Withdrawn: late data at rain gauge ${cfg.label} shows this storm stayed below ${cfg.thresholdIn} in.`,
      evidence: { withdrawn: true, ...evidence(c, cfg) },
    });
    c.alert = 'withdrawn';
  }
}

/** Resolves the open alert of `c` (which the caller owns) when an inspection follows the storm. */
function closeIfInspected(state: StormState, cfg: Cfg, c: StormSnapshot, effects: Effect<typeof RULE>[]) {
  const insp = coveringInspection(state, c);
  if (!insp) return;
  effects.push(inspectedEffect(c, cfg, c.alertKey ?? stormAlertKey(c.id), insp));
  c.alert = 'closed';
}

/**
 * Opens the alert of a qualified event that has none (`c`, which the caller owns): closed at once when
 * an inspection that follows the storm (after its last tip, the storm ended) is on record, or when it
 * took over a storm whose alert was closed.
 */
function openHeld(state: StormState, cfg: Cfg, c: StormSnapshot, effects: Effect<typeof RULE>[]): void {
  // A storm withdrawn by late data that qualifies again gets a fresh key: the engine never reopens a
  // resolved alert.
  c.alertKey =
    c.alert === 'withdrawn' ? `${stormAlertKey(c.id)}:again:${c.thresholdAt}` : stormAlertKey(c.id);
  const key = c.alertKey;
  const insps = inspectionsOf(state, cfg, c);
  const ev = evidence(c, cfg, insps);
  if (c.alert === 'withdrawn') ev.reopened = true;
  effects.push(openEffect(c, cfg, key, ev, insps));
  c.alert = 'open';
  const insp = coveringInspection(state, c);
  const inh = c.inherit;
  delete c.inherit;
  if (insp) {
    effects.push(inspectedEffect(c, cfg, key, insp));
    c.alert = 'closed';
  } else if (inh !== undefined) {
    effects.push({
      type: 'resolve',
      key,
      at: c.thresholdAt!,
      message: `Closed with ${inh}, which late data merged into this storm.`,
      evidence: { inheritedFrom: inh, eventId: c.id },
    });
    c.alert = 'closed';
  }
}

/** Opens the alerts held while the data settled, oldest storm first (`state` is a copy). */
export function releaseHeld(state: StormState, cfg: Cfg, effects: Effect<typeof RULE>[]): void {
  if (!cfg.alerts) return;
  state.events = state.events.map((s) => {
    if (s.thresholdAt === null || (s.alert !== 'none' && s.alert !== 'withdrawn')) return s;
    const c = { ...s };
    openHeld(state, cfg, c, effects);
    return c;
  });
}

/**
 * Moves readings older than the window (or past its 5000) into `base` and `carry`, and drops the events
 * that are final: all their readings pruned and a dry gap after them. One whose alert is still open is
 * kept, frozen, so an inspection can still resolve it; one whose alert is held opens now.
 */
export function prune(state: StormState, cfg: Cfg, effects: Effect<typeof RULE>[]): void {
  const w = state.win;
  if (state.newestTs === null) return;
  const cutoff = state.newestTs - windowMs(cfg);
  let cur = state.carry ? segmentOf(state.carry, cfg) : null;
  const done: Segment[] = [];
  let pruned = 0;
  for (
    let e = entryAt(w, firstPos(w));
    e && (e[0] < cutoff || w.size > STORM_MAX_ENTRIES);
    e = entryAt(w, firstPos(w))
  ) {
    const rain = rainOf(state.base, e, cfg);
    if (rain.n > 0) cur = addTips(cur, e, rain, uncertain(state.base, e, rain.tips, cfg.gapMs), cfg, done);
    state.base = after(state.base, e);
    shift(w);
    pruned++;
  }
  if (pruned === 0) return;
  state.carry = cur && state.base.ts! - cur.end < cfg.gapMs ? cur : null;
  if (cur && !state.carry) done.push(cur);
  const finalIds = new Set(done.map((s) => eventId(cfg, s.start)));
  const kept: StormSnapshot[] = [];
  for (const s of state.events) {
    if (!finalIds.has(s.id)) {
      kept.push(s);
      continue;
    }
    let last = s;
    if (cfg.alerts && last.thresholdAt !== null && (last.alert === 'none' || last.alert === 'withdrawn')) {
      last = { ...s };
      openHeld(state, cfg, last, effects);
    }
    if (last.alert === 'open') kept.push({ ...last, frozen: true });
  }
  const frozen = kept.filter((s) => s.frozen);
  const drop = new Set(frozen.slice(0, Math.max(0, frozen.length - STORM_MAX_FROZEN)));
  state.events = kept.filter((s) => !drop.has(s));
}
