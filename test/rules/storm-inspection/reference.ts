/**
 * The storm rule's derivation as release 0.1.0 made it, kept as the reference the incremental evaluator
 * is compared with (`property.test.ts`): on every input it derives every event again from the window of
 * readings (`increments`, `segments`) and reports each difference from the last report (`reconcile`).
 * A copy of gateway/src/rules/storm-inspection/{events,alert,evaluator}.ts at that release, only its
 * imports changed; do not change its behaviour, except where the law reads otherwise: interval rain is
 * counted at its exact depth (not rounded to tips; the threshold is on depth), and an inspection meets a
 * storm's duty only when it follows the storm (after its last tip, the storm ended; one made while it
 * rained is shown with the storm).
 */
import type { SiteConfig } from '../../../gateway/src/config/schema.ts';
import { openAlert, resolveAlert } from '../../../gateway/src/rules/effects.ts';
import { type DeviceStateHead, deviceState } from '../../../gateway/src/rules/state.ts';
import type { Effect, Evaluator, RuleInput, StormEvent } from '../../../gateway/src/rules/types.ts';
import {
  DAY,
  deviceLabel,
  deviceOf,
  formatLocal,
  HOUR,
  insertSorted,
  isErosionInspection,
  iso,
  lowerBound,
  round6,
} from '../../../gateway/src/rules/util.ts';
import type { SiteContext } from '../helpers.ts';

export const RULE = 'storm-inspection' as const;

export const STORM_WINDOW_MS = 14 * DAY;

/** A rain reading: [source ts, 0 = counter (rainTips) | 1 = interval inches (rainIn), value, receivedAt]. */
export type StormEntry = [number, 0 | 1, number, number];

export interface Segment {
  start: number;
  end: number;
  tips: number;
  /** Its depth in nano-inches: tips at the calibration, interval rain exactly. */
  inN: number;
  thresholdAt: number | null;
  crossingReceivedAt: number | null;
  /** Source ts of the first reading in the event that reported several tips after a long silence. */
  uncertainAt: number | null;
}

const NANO = 1e9;
const nano = (inches: number): number => Math.round(inches * NANO);

export type StormAlertStatus = 'none' | 'open' | 'closed' | 'withdrawn';

export interface StormSnapshot extends Segment {
  id: string;
  dueAt: number | null;
  closed: boolean;
  alert: StormAlertStatus;
  /** The key of the event's alert, once one was opened. */
  alertKey: string | null;
  /** Pruned from the window but its alert is still open. */
  frozen?: boolean;
}

export interface StormState extends DeviceStateHead {
  /** Recent rain readings, sorted by source ts, unique ts. */
  win: StormEntry[];
  /** What the pruned readings left: the last counter value, the last pruned ts, and unconverted inches. */
  base: { counter: number | null; ts: number | null; residueIn: number };
  /** The last event of the pruned readings, when data after `base.ts` could still extend it. */
  carry: Segment | null;
  /** Newest source ts of any reading from the gauge, and how late that reading arrived (receivedAt - ts). */
  newestTs: number | null;
  newestDelay: number;
  /** Newest time known to have passed: newest reading ts or tick. Events end + gap <= horizon are closed. */
  horizon: number | null;
  /** The events as last reported, with their alert status. */
  events: StormSnapshot[];
  inspections: Array<{ at: number; id: string; kind: string; inspector: string }>;
  /** Readings too old for the window: not counted. */
  late: { dropped: number; lastTs: number | null };
}

export interface Cfg {
  siteId: string;
  deviceId: string;
  label: string;
  ipt: number | undefined;
  thresholdIn: number;
  thrTips: number;
  thrN: number;
  gapMs: number;
  dueMs: number;
  dueHours: number;
  dueFrom: 'end' | 'threshold';
  alerts: boolean;
  tz: string;
}

/** The threshold in whole tips: the smallest tip count whose depth reaches thresholdIn. */
export function thresholdTips(thresholdIn: number, inchesPerTip: number): number {
  return Math.max(1, Math.ceil(thresholdIn / inchesPerTip - 1e-9));
}

export function cfgOf(state: StormState, ctx: SiteContext): Cfg {
  const site = ctx.site;
  const ipt = deviceOf(site, state.deviceId)?.inchesPerTip;
  return {
    siteId: state.siteId,
    deviceId: state.deviceId,
    label: deviceLabel(site, state.deviceId),
    ipt,
    thresholdIn: site.storm.thresholdIn,
    thrTips: ipt ? thresholdTips(site.storm.thresholdIn, ipt) : Number.POSITIVE_INFINITY,
    thrN: nano(site.storm.thresholdIn),
    gapMs: site.storm.interEventHours * HOUR,
    dueMs: site.storm.dueHours * HOUR,
    dueHours: site.storm.dueHours,
    dueFrom: site.storm.dueFrom,
    alerts: stormAlertsEnabled(site),
    tz: ctx.timezone,
  };
}

export function stormAlertsEnabled(site: SiteConfig): boolean {
  return site.kind === 'construction' && site.active;
}

export function windowMs(cfg: Cfg): number {
  return Math.max(STORM_WINDOW_MS, 4 * cfg.gapMs);
}

type Increment = [ts: number, tips: number, uncertain: boolean, receivedAt: number, n: number];

/** Tip increments of `entries` (sorted) following `base`; returns them and the base after them. */
export function increments(
  entries: readonly StormEntry[],
  base: StormState['base'],
  ipt: number,
  gapMs: number,
): { incs: Increment[]; base: StormState['base'] } {
  const incs: Increment[] = [];
  let counter = base.counter;
  let prevTs = base.ts;
  let sumIn = base.residueIn;
  let inTips = 0;
  for (const [ts, kind, value, rec] of entries) {
    let inc = 0;
    let n = 0;
    if (kind === 0) {
      if (counter !== null) inc = value >= counter ? value - counter : value;
      counter = value;
      n = inc * nano(ipt);
    } else {
      sumIn += value;
      const t = Math.round(sumIn / ipt);
      inc = t - inTips;
      inTips = t;
      n = nano(value);
    }
    if (n > 0) incs.push([ts, inc, inc > 1 && prevTs !== null && ts - prevTs >= gapMs, rec, n]);
    prevTs = ts;
  }
  return { incs, base: { counter, ts: prevTs, residueIn: sumIn - inTips * ipt } };
}

/** Splits increments into events at dry gaps >= gapMs, continuing `carry`. */
export function segments(carry: Segment | null, incs: readonly Increment[], cfg: Cfg): Segment[] {
  const out: Segment[] = [];
  // A segment of a state stored by release 0.1.0 has no depth: its tips at the calibration.
  let cur: Segment | null = carry ? { ...carry, inN: carry.inN ?? carry.tips * nano(cfg.ipt ?? 0) } : null;
  for (const [ts, inc, uncertain, rec, n] of incs) {
    if (cur && ts - cur.end < cfg.gapMs) {
      cur.tips += inc;
      cur.inN += n;
      cur.end = ts;
    } else {
      if (cur) out.push(cur);
      cur = {
        start: ts,
        end: ts,
        tips: inc,
        inN: n,
        thresholdAt: null,
        crossingReceivedAt: null,
        uncertainAt: null,
      };
    }
    if (uncertain && cur.uncertainAt === null) cur.uncertainAt = ts;
    if (cur.thresholdAt === null && cur.inN >= cfg.thrN - 1) {
      cur.thresholdAt = ts;
      cur.crossingReceivedAt = rec;
    }
  }
  if (cur) out.push(cur);
  return out;
}

export function eventId(cfg: Cfg, start: number): string {
  return `${cfg.siteId}:${cfg.deviceId}:${start}`;
}

/** The key of a storm's alert: the rule and the event's id (which names the site and the gauge). */
export function stormAlertKey(eventId: string): string {
  return `${RULE}:${eventId}`;
}

export function snapshot(seg: Segment, cfg: Cfg, horizon: number | null): StormSnapshot {
  const qualified = seg.thresholdAt !== null;
  const dueAt = qualified ? (cfg.dueFrom === 'threshold' ? seg.thresholdAt! : seg.end) + cfg.dueMs : null;
  return {
    ...seg,
    id: eventId(cfg, seg.start),
    dueAt,
    closed: horizon !== null && horizon - seg.end >= cfg.gapMs,
    alert: 'none',
    alertKey: null,
  };
}

export function inchesOf(s: Segment, cfg: Cfg): number {
  return round6((s.inN ?? s.tips * nano(cfg.ipt ?? 0)) / NANO);
}

export function stormEvent(s: StormSnapshot, cfg: Cfg, supersededBy?: string): StormEvent {
  const ev: StormEvent = {
    id: s.id,
    siteId: cfg.siteId,
    deviceId: cfg.deviceId,
    start: s.start,
    end: s.end,
    tips: s.tips,
    inches: inchesOf(s, cfg),
    qualified: s.thresholdAt !== null,
    closed: supersededBy !== undefined ? true : s.closed,
  };
  if (s.thresholdAt !== null) ev.thresholdAt = s.thresholdAt;
  if (s.dueAt !== null) ev.dueAt = s.dueAt;
  if (supersededBy !== undefined) ev.supersededBy = supersededBy;
  // What the totals were computed with (the evidence log's storm record carries it).
  if (cfg.ipt !== undefined) ev.basis = { inchesPerTip: cfg.ipt, thresholdIn: cfg.thresholdIn };
  return ev;
}

export function changed(a: StormSnapshot, b: StormSnapshot): boolean {
  return (
    a.start !== b.start ||
    a.end !== b.end ||
    a.tips !== b.tips ||
    (a.inN !== undefined && b.inN !== undefined && a.inN !== b.inN) ||
    a.thresholdAt !== b.thresholdAt ||
    a.dueAt !== b.dueAt ||
    a.closed !== b.closed
  );
}

/** Picks the event that took over `old`: the one within a dry gap of it, the largest overlap, else the nearest. */
export function successorOf(
  old: StormSnapshot,
  current: readonly StormSnapshot[],
  gapMs: number,
): StormSnapshot | null {
  let best: StormSnapshot | null = null;
  let bestScore = Number.NEGATIVE_INFINITY;
  for (const c of current) {
    const overlap = Math.min(old.end, c.end) - Math.max(old.start, c.start); // negative: distance apart
    const score = overlap > -gapMs ? overlap : overlap - 1e15;
    if (score > bestScore) {
      bestScore = score;
      best = c;
    }
  }
  return best;
}

export type StormInspection = StormState['inspections'][number];

interface StormInspections {
  during: Array<{ insp: StormInspection; inches: number | null }>;
  awaiting?: StormInspection;
}
const NONE: StormInspections = { during: [] };

/** The storm's rain from its first tip to `t`, from the window (and the carried event's pruned part). */
function depthAt(state: StormState, cfg: Cfg, s: StormSnapshot, t: number): number | null {
  if (s.frozen) return null;
  const { incs } = increments(state.win, state.base, cfg.ipt!, cfg.gapMs);
  const c = state.carry;
  let n = c?.start === s.start ? (c.inN ?? c.tips * nano(cfg.ipt ?? 0)) : 0;
  for (const [ts, , , , d] of incs) if (ts >= s.start && ts <= t) n += d;
  return n;
}

function inspectionsOf(state: StormState, cfg: Cfg, s: StormSnapshot): StormInspections {
  const during: StormInspections['during'] = [];
  for (const i of state.inspections) {
    if (i.at < s.start) continue;
    if (i.at > s.end) return !s.closed && !s.frozen ? { during, awaiting: i } : { during };
    const n = depthAt(state, cfg, s, i.at);
    during.push({ insp: i, inches: n === null ? null : round6(n / NANO) });
  }
  return { during };
}

function coveringInspection(state: StormState, s: StormSnapshot) {
  if (!s.closed && !s.frozen) return undefined;
  return state.inspections.find((i) => i.at > s.end);
}

export function evidence(
  s: StormSnapshot,
  cfg: Cfg,
  insps: StormInspections = NONE,
): Record<string, unknown> {
  const e: Record<string, unknown> = {
    eventId: s.id,
    deviceId: cfg.deviceId,
    start: iso(s.start),
    end: iso(s.end),
    tips: s.tips,
    inches: inchesOf(s, cfg),
    inchesPerTip: cfg.ipt,
    thresholdIn: cfg.thresholdIn,
    thresholdTips: cfg.thrTips,
    dueFrom: cfg.dueFrom,
    dueHours: cfg.dueHours,
    closed: s.closed,
  };
  if (s.thresholdAt !== null) e.thresholdAt = iso(s.thresholdAt);
  if (s.crossingReceivedAt !== null) e.crossingReceivedAt = iso(s.crossingReceivedAt);
  if (s.dueAt !== null) e.dueAt = iso(s.dueAt);
  if (s.uncertainAt !== null)
    e.timingUncertain = {
      readingAt: iso(s.uncertainAt),
      note: `a reading after a silence of ${cfg.gapMs / HOUR} h or more reported several tips at once; they may have fallen earlier`,
    };
  if (insps.during.length)
    e.inspectedDuring = insps.during.map((d) => ({
      inspectionId: d.insp.id,
      inspectedAt: iso(d.insp.at),
      inches: d.inches,
    }));
  if (insps.awaiting)
    e.inspectedAfterLastTip = { inspectionId: insps.awaiting.id, inspectedAt: iso(insps.awaiting.at) };
  return e;
}

export function message(s: StormSnapshot, cfg: Cfg, insps: StormInspections = NONE): string {
  let words = '';
  for (const d of insps.during)
    words +=
      ` Inspected during the storm${d.inches === null ? '' : `, at ${d.inches.toFixed(2)} in`} ` +
      `(${formatLocal(d.insp.at, cfg.tz)}, by ${d.insp.inspector}): made while it still rained, it does not ` +
      'meet the duty; an inspection after the rain ends is still due.';
  if (insps.awaiting)
    words +=
      ` Inspected ${formatLocal(insps.awaiting.at, cfg.tz)} by ${insps.awaiting.inspector}, after the last ` +
      `tip: it meets the duty once no rain has fallen for ${cfg.gapMs / HOUR} h after it.`;
  const inches = inchesOf(s, cfg).toFixed(2);
  const due =
    cfg.dueFrom === 'end'
      ? s.closed
        ? `${cfg.dueHours} h after the rain ended`
        : `${cfg.dueHours} h after the last tip; it moves while it still rains`
      : `${cfg.dueHours} h after the threshold was crossed`;
  return (
    `Storm at rain gauge ${cfg.label}: ${inches} in (${s.tips} tips) since ${formatLocal(s.start, cfg.tz)}` +
    `${s.closed ? `, ended ${formatLocal(s.end, cfg.tz)}` : ', still raining'}; reached ${cfg.thresholdIn} in at ` +
    `${formatLocal(s.thresholdAt!, cfg.tz)}. Erosion and sediment control inspection due by ` +
    `${formatLocal(s.dueAt!, cfg.tz)} (${due}).${words}`
  );
}

/** The 'open' effect for a qualifying storm's alert: raises it, or updates it when late data moved the crossing. */
export function openEffect(
  s: StormSnapshot,
  cfg: Cfg,
  key: string,
  ev: Record<string, unknown>,
  insps: StormInspections = NONE,
): Effect<typeof RULE> {
  return openAlert(RULE, cfg, {
    key,
    at: s.thresholdAt!,
    dueAt: s.dueAt!,
    message: message(s, cfg, insps),
    evidence: ev,
  });
}

function inspectionEvidence(s: StormSnapshot, insp: StormInspection): Record<string, unknown> {
  return {
    eventId: s.id,
    inspectionId: insp.id,
    inspectionKind: insp.kind,
    inspector: insp.inspector,
    inspectedAt: iso(insp.at),
    thresholdAt: s.thresholdAt !== null ? iso(s.thresholdAt) : undefined,
    dueAt: s.dueAt !== null ? iso(s.dueAt) : undefined,
    onTime: s.dueAt !== null ? insp.at < s.dueAt : undefined,
  };
}

/** The resolution of a storm's alert by an inspection at or after its crossing. */
export function inspectedEffect(
  s: StormSnapshot,
  cfg: Cfg,
  key: string,
  insp: StormInspection,
): Effect<typeof RULE> {
  return resolveAlert(key, insp.at, {
    message: `Inspected ${formatLocal(insp.at, cfg.tz)} by ${insp.inspector}.`,
    evidence: inspectionEvidence(s, insp),
  });
}

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
      const insps = inspectionsOf(state, cfg, c);
      const ev = evidence(c, cfg, insps);
      if (c.alert === 'withdrawn') ev.reopened = true;
      effects.push(openEffect(c, cfg, key, ev, insps));
      c.alert = 'open';
      const insp = coveringInspection(state, c);
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
      const insps = inspectionsOf(state, cfg, c);
      effects.push(openEffect(c, cfg, key, evidence(c, cfg, insps), insps));
      const insp = coveringInspection(state, c);
      if (insp) {
        effects.push(inspectedEffect(c, cfg, key, insp));
        c.alert = 'closed';
      }
    } else if (qualified && c.alert === 'open' && prev) {
      // The alert follows its storm's record: its due time, and the total and end its message tells.
      const closing = c.closed && !prev.closed;
      if (changed(prev, c)) {
        const insps = inspectionsOf(state, cfg, c);
        effects.push({
          type: 'update',
          key,
          at: closing ? c.end + cfg.gapMs : c.end,
          dueAt: c.dueAt!,
          message: message(c, cfg, insps),
          evidence: evidence(c, cfg, insps),
        });
      }
      const insp = coveringInspection(state, c);
      if (insp) {
        effects.push(inspectedEffect(c, cfg, key, insp));
        c.alert = 'closed';
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

export const referenceStormEvaluator: Evaluator<StormState, typeof RULE> = {
  rule: RULE,
  init(ctx: SiteContext, deviceId?: string): StormState {
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

  evaluate(prev: StormState, input: RuleInput, ctx: SiteContext) {
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
          if (s.alert !== 'open' || s.thresholdAt === null) continue;
          const key = s.alertKey ?? stormAlertKey(s.id);
          const covering = coveringInspection(state, s);
          if (covering) {
            effects.push(inspectedEffect(s, cfg, key, covering));
            s.alert = 'closed';
          } else if (insp.at >= s.start) {
            const insps = inspectionsOf(state, cfg, s);
            effects.push({
              type: 'update',
              key,
              at: insp.at,
              dueAt: s.dueAt!,
              message: message(s, cfg, insps),
              evidence: evidence(s, cfg, insps),
            });
          }
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
      default:
        return { state: prev, effects };
    }
  },
};

/** The storms currently derived, for tests and diagnostics. */
export function stormEventsOf(state: StormState, ctx: SiteContext): StormEvent[] {
  const cfg = cfgOf(state, ctx);
  return state.events.filter((s) => !s.frozen).map((s) => stormEvent(s, cfg));
}
