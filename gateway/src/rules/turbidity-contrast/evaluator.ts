/**
 * `turbidity-contrast`: land development shall not cause turbidity that results in a substantial
 * visible contrast to natural conditions in surface waters (law 001, water quality standards). The legal
 * test is visual; this rule is a configurable SURROGATE (outlet NTU minus background NTU greater than
 * `turbidity.marginNtu`), and every message says so. One evaluator per site, one alert per outlet per
 * episode. Matching outlet with background readings, its alerts and edge cases: README.md in this folder.
 */
import type { SiteView } from '../context.ts';
import { alertKey, openAlert } from '../effects.ts';
import { type SiteStateHead, siteState } from '../state.ts';
import type { Effect, Evaluator, RuleContext, RuleInput } from '../types.ts';
import { deviceLabel, formatLocal, HOUR, iso, MINUTE } from '../util.ts';
import type { Params } from './params.ts';

export const RULE = 'turbidity-contrast' as const;
export const TURBIDITY_MATCH_MS = 30 * MINUTE;
export const TURBIDITY_HOLD_MS = 30 * MINUTE;
const BG_KEEP_MS = 6 * HOUR;
const BG_MAX = 500;
const PENDING_MAX = 100;
const PENDING_KEEP_MS = 2 * HOUR;

type Pt = [ts: number, ntu: number];

/** One outlet's comparison state. */
export interface OutletTrack {
  siteId: string;
  deviceId: string;
  pending: Array<[ts: number, ntu: number, receivedAt: number]>;
  newestSampleTs: number | null;
  newestDelay: number;
  unmatched: number;
  episode: {
    key: string;
    began: number;
    peak: { contrast: number; ts: number; outlet: number; background: number };
    reportedPeak: number;
    normalSince: number | null;
  } | null;
}

export interface TurbidityState extends SiteStateHead {
  /** Recent background readings of the site (all background devices), sorted by source ts. */
  background: Pt[];
  outlets: Record<string, OutletTrack>;
}

function newOutlet(siteId: string, deviceId: string): OutletTrack {
  return { siteId, deviceId, pending: [], newestSampleTs: null, newestDelay: 0, unmatched: 0, episode: null };
}

/** The site's turbidity devices in one role. */
export function turbidityIds(site: SiteView<Params>, role: 'outlet' | 'background'): string[] {
  return site.devices.filter((d) => d.kind === 'turbidity' && d.role === role).map((d) => d.id);
}

/** The site's outlet and background ids, worked out once per site configuration (a reading only looks up). */
const rolesOf = new WeakMap<SiteView<Params>, { outlet: Set<string>; background: Set<string> }>();
function roles(ctx: RuleContext<Params>): { outlet: Set<string>; background: Set<string> } {
  let r = rolesOf.get(ctx.site);
  if (!r) {
    r = {
      outlet: new Set(turbidityIds(ctx.site, 'outlet')),
      background: new Set(turbidityIds(ctx.site, 'background')),
    };
    rolesOf.set(ctx.site, r);
  }
  return r;
}

function outletIds(ctx: RuleContext<Params>): string[] {
  return [...roles(ctx).outlet];
}

/** A track the next state may change, leaving the previous state's as it was. */
function copyTrack(t: OutletTrack): OutletTrack {
  return {
    ...t,
    pending: t.pending.slice(),
    episode: t.episode ? { ...t.episode, peak: { ...t.episode.peak } } : null,
  };
}

function match(bg: readonly Pt[], ts: number): Pt | undefined {
  let before: Pt | undefined;
  let after: Pt | undefined;
  for (const p of bg) {
    if (p[0] <= ts) before = p;
    else {
      after = p;
      break;
    }
  }
  if (before && ts - before[0] <= TURBIDITY_MATCH_MS) return before;
  if (after && after[0] - ts <= TURBIDITY_MATCH_MS) return after;
  return undefined;
}

function surrogateNote(margin: number): string {
  return `NTU margin of ${margin} is a surrogate, not the legal test (no substantial visible contrast in the receiving water, law 001): check the receiving water`;
}

function resolveEpisode(
  state: OutletTrack,
  at: number,
  ctx: RuleContext<Params>,
  effects: Effect<typeof RULE>[],
): void {
  const ep = state.episode!;
  effects.push({
    type: 'resolve',
    key: ep.key,
    at,
    message: `Outlet turbidity at ${deviceLabel(ctx.site, state.deviceId)} back within ${ctx.site.turbidity.marginNtu} NTU of the background since ${formatLocal(at, ctx.timezone)}.`,
    evidence: {
      began: iso(ep.began),
      normalSince: iso(at),
      peakContrastNtu: ep.peak.contrast,
      peakAt: iso(ep.peak.ts),
      holdMinutes: TURBIDITY_HOLD_MS / MINUTE,
      outletReadingsWithoutBackground: state.unmatched,
    },
  });
  state.episode = null;
  state.unmatched = 0;
}

function sample(
  state: OutletTrack,
  ts: number,
  outlet: number,
  bg: Pt,
  ctx: RuleContext<Params>,
  effects: Effect<typeof RULE>[],
) {
  const margin = ctx.site.turbidity.marginNtu;
  const contrast = outlet - bg[1];
  const above = contrast > margin;
  const ep = state.episode;
  const inOrder = state.newestSampleTs === null || ts > state.newestSampleTs;
  if (inOrder) state.newestSampleTs = ts;
  const label = deviceLabel(ctx.site, state.deviceId);
  const ev = {
    outletNtu: outlet,
    backgroundNtu: bg[1],
    contrastNtu: contrast,
    marginNtu: margin,
    at: iso(ts),
    backgroundAt: iso(bg[0]),
    surrogate: true,
    outletReadingsWithoutBackground: state.unmatched,
  };
  if (ep) {
    if (above && contrast > ep.peak.contrast) ep.peak = { contrast, ts, outlet, background: bg[1] };
    if (!inOrder) return;
    if (above) {
      ep.normalSince = null;
      if (contrast >= ep.reportedPeak + margin) {
        ep.reportedPeak = contrast;
        effects.push({
          type: 'update',
          key: ep.key,
          at: ts,
          message: `Outlet turbidity at ${label} is ${contrast} NTU above the background (${outlet} vs ${bg[1]} NTU). ${surrogateNote(margin)}.`,
          evidence: ev,
        });
      }
    } else {
      if (ep.normalSince === null) ep.normalSince = ts;
      if (ts - ep.normalSince >= TURBIDITY_HOLD_MS) resolveEpisode(state, ep.normalSince, ctx, effects);
    }
    return;
  }
  if (!above || !inOrder) return;
  const key = alertKey(RULE, state, ts);
  state.episode = {
    key,
    began: ts,
    peak: { contrast, ts, outlet, background: bg[1] },
    reportedPeak: contrast,
    normalSince: null,
  };
  effects.push(
    openAlert(RULE, state, {
      key,
      at: ts,
      message:
        `Outlet turbidity at ${label} is ${contrast} NTU above the upstream background (${outlet} vs ${bg[1]} NTU) ` +
        `at ${formatLocal(ts, ctx.timezone)}. The ${surrogateNote(margin)}.`,
      evidence: ev,
    }),
  );
  state.unmatched = 0;
}

function trimPending(t: OutletTrack): void {
  const newest = t.pending[t.pending.length - 1]?.[0];
  while (
    t.pending.length > PENDING_MAX ||
    (t.pending.length > 0 && newest !== undefined && t.pending[0]![0] < newest - PENDING_KEEP_MS)
  ) {
    t.pending.shift();
    t.unmatched++;
  }
}

export const turbidityEvaluator: Evaluator<TurbidityState, typeof RULE, Params> = {
  rule: RULE,
  init(ctx: RuleContext<Params>): TurbidityState {
    const outlets: Record<string, OutletTrack> = {};
    for (const id of outletIds(ctx)) outlets[id] = newOutlet(ctx.site.id, id);
    return siteState(ctx, { background: [], outlets });
  },
  evaluate(prev: TurbidityState, input: RuleInput, ctx: RuleContext<Params>) {
    const effects: Effect<typeof RULE>[] = [];
    if (input.type === 'tick') {
      const due = Object.values(prev.outlets).filter(
        (t) =>
          t.episode !== null &&
          t.episode.normalSince !== null &&
          input.now - t.newestDelay - t.episode.normalSince >= TURBIDITY_HOLD_MS,
      );
      if (due.length === 0) return { state: prev, effects };
      const state = structuredClone(prev);
      for (const d of due) {
        const t = state.outlets[d.deviceId]!;
        resolveEpisode(t, t.episode!.normalSince!, ctx, effects);
      }
      return { state, effects };
    }
    if (input.type === 'alert-closed') {
      const hit = Object.values(prev.outlets).find((t) => t.episode?.key === input.key);
      if (!hit) return { state: prev, effects };
      const state = structuredClone(prev);
      state.outlets[hit.deviceId]!.episode = null;
      return { state, effects };
    }
    if (input.type !== 'reading') return { state: prev, effects };
    const r = input.reading;
    const ntu = r.values.turbidityNtu;
    if (r.siteId !== prev.siteId || ntu === undefined) return { state: prev, effects };
    const { outlet, background } = roles(ctx);
    const isOutlet = outlet.has(r.deviceId);
    if (!isOutlet && !background.has(r.deviceId)) return { state: prev, effects };
    // Copied on write: the site's other outlets (and, for an outlet reading, the background) are shared
    // with the previous state, so a reading costs the same however many devices the site has.
    const state: TurbidityState = { ...prev, outlets: { ...prev.outlets } };
    if (isOutlet) {
      const old = state.outlets[r.deviceId];
      const t = old ? copyTrack(old) : newOutlet(state.siteId, r.deviceId);
      state.outlets[r.deviceId] = t;
      if (t.newestSampleTs === null || r.ts >= t.newestSampleTs)
        t.newestDelay = Math.max(0, r.receivedAt - r.ts);
      const bg = match(state.background, r.ts);
      if (bg) sample(t, r.ts, ntu, bg, ctx, effects);
      else {
        t.pending.push([r.ts, ntu, r.receivedAt]);
        t.pending.sort((a, b) => a[0] - b[0]);
        trimPending(t);
      }
      return { state, effects };
    }
    const bg = prev.background.slice();
    state.background = bg;
    const i = bg.findIndex((p) => p[0] >= r.ts);
    if (i < 0) bg.push([r.ts, ntu]);
    else if (bg[i]![0] !== r.ts) bg.splice(i, 0, [r.ts, ntu]);
    const newestBg = bg[bg.length - 1]![0];
    while (bg.length > BG_MAX || (bg.length > 1 && bg[0]![0] < newestBg - BG_KEEP_MS)) bg.shift();
    for (const id of Object.keys(state.outlets)) {
      if (state.outlets[id]!.pending.length === 0) continue;
      const t = copyTrack(state.outlets[id]!);
      state.outlets[id] = t;
      const still: OutletTrack['pending'] = [];
      for (const p of t.pending) {
        const m = match(bg, p[0]);
        if (m) sample(t, p[0], p[1], m, ctx, effects);
        else if (newestBg - p[0] > TURBIDITY_MATCH_MS) t.unmatched++;
        else still.push(p);
      }
      t.pending = still;
    }
    return { state, effects };
  },
};
