/**
 * Deriving the storm events from the window's readings, as much as a change needs:
 * - `tipsOf`: a reading's tips. A counter's tips are its value minus the previous counter value in
 *   source order (a drop is a reboot: the new value is the tips since it); the earliest counter reading
 *   is the baseline. Interval rain's depth is its inches exactly (`rainOf`: whole nano-inches, never
 *   rounded to tips); its tips, shown beside it, are the running total rounded to tips.
 * - `addTips`: events split at dry gaps of `interEventHours` or more; an event crosses the threshold at
 *   the reading whose tips bring it there.
 * - `refoldFrom`: the events again from the first reading a change touched, starting from what the
 *   events before it give, and only until the events agree with the old ones again: for a reading
 *   newer than every other, the newest event alone; for a late counter reading, the events from the one
 *   it falls in to the one holding the next counter reading (the only ones whose tips it changes). A
 *   late interval reading moves the running total of every later one, so it folds to the newest.
 * - `refoldAll`: every event of the window, from the carried event of the pruned readings (a change of
 *   the parameters, or a state of an older version).
 */
import { lowerBound } from '../util.ts';
import { type Cfg, depthN, type Segment, type StormSnapshot, tipsN } from './events.ts';
import {
  after,
  contextAt,
  contextIn,
  type EntryContext,
  entriesOf,
  entryAt,
  firstPos,
  NANO,
  nanoInches,
  nextPos,
  type Pos,
  prevPos,
  type StormEntry,
  type StormWindow,
} from './window.ts';

/** The tips `e` reports after `ctx`. */
export function tipsOf(ctx: EntryContext, e: StormEntry, ipt: number): number {
  if (e[1] === 0) return ctx.counter === null ? 0 : e[2] >= ctx.counter ? e[2] - ctx.counter : e[2];
  const iptN = ipt * NANO;
  return Math.round((ctx.sumN + nanoInches(e[2])) / iptN) - Math.round(ctx.sumN / iptN);
}

/**
 * The rain `e` reports after `ctx`: its tips and its depth in nano-inches. A counter's depth is its tips
 * at the calibration in force at its time; interval rain's is the inches reported, exactly (0.25 + 0.245
 * in is 0.495 in, under 0.5 in, whatever the tip), so a reading rains when its depth is above zero.
 */
export function rainOf(ctx: EntryContext, e: StormEntry, cfg: Cfg): { tips: number; n: number } {
  const tips = tipsOf(ctx, e, cfg.ipt!);
  return { tips, n: e[1] === 1 ? nanoInches(e[2]) : tipsN(tips, e[0], cfg) };
}

/** Several tips at once after a silence of interEventHours or more: they may have fallen earlier. */
export function uncertain(ctx: EntryContext, e: StormEntry, tips: number, gapMs: number): boolean {
  return tips > 1 && ctx.ts !== null && e[0] - ctx.ts >= gapMs;
}

export function segmentOf(s: Segment, cfg: Cfg): Segment {
  return {
    start: s.start,
    end: s.end,
    tips: s.tips,
    inN: depthN(s, cfg),
    thresholdAt: s.thresholdAt,
    crossingReceivedAt: s.crossingReceivedAt,
    uncertainAt: s.uncertainAt,
  };
}

/** Adds a reading's tips to `cur` (a segment the fold owns), or ends it in `done` and starts another. */
export function addTips(
  cur: Segment | null,
  e: StormEntry,
  rain: { tips: number; n: number },
  unsure: boolean,
  cfg: Cfg,
  done: Segment[],
): Segment {
  const ts = e[0];
  let seg = cur;
  const { tips, n } = rain;
  if (seg && ts - seg.end < cfg.gapMs) {
    seg.tips += tips;
    seg.inN = depthN(seg, cfg) + n;
    seg.end = ts;
  } else {
    if (seg) done.push(seg);
    seg = {
      start: ts,
      end: ts,
      tips,
      inN: n,
      thresholdAt: null,
      crossingReceivedAt: null,
      uncertainAt: null,
    };
  }
  if (unsure && seg.uncertainAt === null) seg.uncertainAt = ts;
  // Crossed on depth, each reading at its own calibration (within a nano-inch of the threshold's rounding).
  if (seg.thresholdAt === null && (seg.inN ?? 0) >= cfg.thrN - 1) {
    seg.thresholdAt = ts;
    seg.crossingReceivedAt = e[3];
  }
  return seg;
}

/** The events of the window replaced by `segs`: live events [from, to] (to < from: none). */
export interface Refold {
  from: number;
  to: number;
  segs: Segment[];
}

/** Every event of the window, from `carry`. */
export function refoldAll(w: StormWindow, carry: Segment | null, live: number, cfg: Cfg): Refold {
  const done: Segment[] = [];
  let cur = carry ? segmentOf(carry, cfg) : null;
  let p = firstPos(w);
  let ctx = contextAt(w, p);
  for (let e = entryAt(w, p); e; p = nextPos(w, p), e = entryAt(w, p)) {
    const rain = rainOf(ctx, e, cfg);
    if (rain.n > 0) cur = addTips(cur, e, rain, uncertain(ctx, e, rain.tips, cfg.gapMs), cfg, done);
    ctx = after(ctx, e);
  }
  if (cur) done.push(cur);
  return { from: 0, to: live - 1, segs: done };
}

/** Index of the last event whose start is before `ts` (-1: none). */
function lastStartingBefore(live: readonly StormSnapshot[], ts: number): number {
  return lowerBound(live, ts, (e) => e.start) - 1;
}

function startingAt(live: readonly StormSnapshot[], ts: number): number {
  const i = lastStartingBefore(live, ts) + 1;
  return live[i]?.start === ts ? i : -1;
}

/**
 * The events again after the entry at `at` was added (inserted or appended; its ts `t`). `hi`: the ts of
 * the last entry whose tips the addition may have changed. `live`: the events before the addition;
 * `carry`: the pruned readings' last event.
 */
export function refoldFrom(
  w: StormWindow,
  at: Pos,
  hi: number,
  live: readonly StormSnapshot[],
  carry: Segment | null,
  cfg: Cfg,
): Refold {
  const added = entryAt(w, at)!;
  const t = added[0];
  const before = contextAt(w, at);
  const a = lastStartingBefore(live, t);
  let cur: Segment | null = null;
  if (a >= 0) {
    const ev = live[a]!;
    cur = ev.end < t ? segmentOf(ev, cfg) : partialBefore(w, at, before, ev, carry, cfg);
  }
  const done: Segment[] = [];
  let to = live.length - 1;
  let ctx = before;
  let p = at;
  for (let e: StormEntry | undefined = added; e; p = nextPos(w, p), e = entryAt(w, p)) {
    const rain = rainOf(ctx, e, cfg);
    if (rain.n > 0) {
      const starts = cur === null || e[0] - cur.end >= cfg.gapMs;
      const same = starts && e[0] > hi ? startingAt(live, e[0]) : -1;
      if (same >= 0) {
        // From here on the readings and the fold are as they were: so are the events.
        to = same - 1;
        break;
      }
      cur = addTips(cur, e, rain, uncertain(ctx, e, rain.tips, cfg.gapMs), cfg, done);
    }
    ctx = after(ctx, e);
  }
  if (cur) done.push(cur);
  return { from: Math.max(a, 0), to, segs: done };
}

/**
 * Event `ev`, which spans the added entry's time, as its readings before that entry make it: its tips
 * less those of the readings after the entry (counted as they were, without it), its last tip before
 * the entry, and its crossing and uncertain reading when they came before it.
 */
function partialBefore(
  w: StormWindow,
  at: Pos,
  before: EntryContext,
  ev: StormSnapshot,
  carry: Segment | null,
  cfg: Cfg,
): Segment {
  const t = entryAt(w, at)![0];
  let later = 0;
  let laterN = 0;
  let ctx = before;
  for (let p = nextPos(w, at), e = entryAt(w, p); e && e[0] <= ev.end; p = nextPos(w, p), e = entryAt(w, p)) {
    const rain = rainOf(ctx, e, cfg);
    later += rain.tips;
    laterN += rain.n;
    ctx = after(ctx, e);
  }
  const crossed = ev.thresholdAt !== null && ev.thresholdAt < t;
  return {
    start: ev.start,
    end: lastTipBefore(w, at, cfg) ?? carriedEnd(ev, carry),
    tips: ev.tips - later,
    inN: depthN(ev, cfg) - laterN,
    thresholdAt: crossed ? ev.thresholdAt : null,
    crossingReceivedAt: crossed ? ev.crossingReceivedAt : null,
    uncertainAt: ev.uncertainAt !== null && ev.uncertainAt < t ? ev.uncertainAt : null,
  };
}

/** The ts of the last entry before `at` that reports rain (null: none in the window, only pruned ones). */
function lastTipBefore(w: StormWindow, at: Pos, cfg: Cfg): number | null {
  const prev = prevPos(w, at);
  if (!prev) return null;
  let c = prev.c;
  let last = prev.i;
  while (c >= 0) {
    const chunk = w.chunks[c]!;
    const es = entriesOf(chunk);
    const first = c === 0 ? w.skip : 0;
    // The tips of this chunk's entries, from its own context.
    let ctx = contextIn(chunk, first);
    const rained: boolean[] = [];
    for (let i = first; i <= last; i++) {
      rained.push(rainOf(ctx, es[i]!, cfg).n > 0);
      ctx = after(ctx, es[i]!);
    }
    for (let i = last; i >= first; i--) if (rained[i - first]) return es[i]![0];
    c--;
    last = (w.chunks[c]?.n ?? 0) - 1;
  }
  return null;
}

/** The last tip of an event with none in the window: the carried event's, from the pruned readings. */
function carriedEnd(ev: StormSnapshot, carry: Segment | null): number {
  if (carry?.start !== ev.start)
    throw new Error(`storm event ${ev.id} has no tip before a late reading and is not the carried event`);
  return carry.end;
}
