/**
 * `holding-tank-pumpout`: a holding tank (a sealed tank with no outlet, law 000 definitions) must be
 * pumped out, its contents disposed of as 2.010 B says, before it overflows. One evaluator per
 * holding-tank device. Its alerts and edge cases: README.md in this folder.
 */
import { alertKey, openAlert } from '../effects.ts';
import { addSample, type BoolTrack, copyTrack, episodesOf, newestTs, newTrack, pruneTrack } from '../hold.ts';
import { type DeviceStateHead, deviceState } from '../state.ts';
import type { Effect, Evaluator, RuleContext, RuleInput } from '../types.ts';
import { DAY, deviceLabel, deviceOf, formatLocal, iso, SECOND } from '../util.ts';
import type { Params } from './params.ts';

export const RULE = 'holding-tank-pumpout' as const;
/** A level at or below this fraction of highLevelIn shows a pump-out. */
export const HOLDING_PUMPED_FRACTION = 0.5;

export interface HoldingState extends DeviceStateHead {
  newestLevelTs: number | null;
  sawLevel: boolean;
  float: BoolTrack;
  tickHorizon: number | null;
  /** Begin times of float episodes already turned into (or covered by) an alert. */
  floatHandled: number[];
  armed: boolean;
  alert: { key: string; at: number; peak: { levelIn: number; ts: number } | null; cause: string } | null;
}

function open(
  state: HoldingState,
  at: number,
  cause: string,
  ctx: RuleContext<Params>,
  effects: Effect<typeof RULE>[],
  ev: Record<string, unknown>,
) {
  const key = alertKey(RULE, state, at);
  state.alert = { key, at, peak: null, cause };
  effects.push(
    openAlert(RULE, state, {
      key,
      at,
      message: `Holding tank ${deviceLabel(ctx.site, state.deviceId)}: ${cause}, since ${formatLocal(at, ctx.timezone)}. Pump it out.`,
      evidence: { cause, at: iso(at), ...ev },
    }),
  );
}

function resolve(
  state: HoldingState,
  at: number,
  ctx: RuleContext<Params>,
  effects: Effect<typeof RULE>[],
  ev: Record<string, unknown>,
) {
  const a = state.alert!;
  effects.push({
    type: 'resolve',
    key: a.key,
    at,
    message: `Holding tank ${deviceLabel(ctx.site, state.deviceId)} pumped out (seen ${formatLocal(at, ctx.timezone)}).`,
    evidence: { began: iso(a.at), pumpedOutSeenAt: iso(at), ...ev },
  });
  state.alert = null;
}

function checkFloat(state: HoldingState, ctx: RuleContext<Params>, effects: Effect<typeof RULE>[]): void {
  const holdMs = ctx.site.alarmHoldSeconds * SECOND;
  const eps = episodesOf(state.float, holdMs, state.tickHorizon);
  for (const ep of eps) {
    if (state.floatHandled.includes(ep.began)) {
      // Alarm-only tanks: the float back to normal (held) is the pump-out.
      if (ep.remedied !== null && !state.sawLevel && state.alert?.cause === 'high-water alarm')
        resolve(state, ep.remedied, ctx, effects, { floatNormalSince: iso(ep.remedied) });
      continue;
    }
    state.floatHandled.push(ep.began);
    if (ep.remedied !== null && state.sawLevel) continue; // already over; the level tells the story
    if (!state.alert)
      open(state, ep.began, 'high-water alarm', ctx, effects, {
        input: 'highWater',
        holdSeconds: holdMs / SECOND,
      });
    if (ep.remedied !== null && !state.sawLevel && state.alert?.cause === 'high-water alarm')
      resolve(state, ep.remedied, ctx, effects, { floatNormalSince: iso(ep.remedied) });
  }
  if (state.floatHandled.length > 50) state.floatHandled.splice(0, state.floatHandled.length - 50);
  const newest = newestTs(state.float);
  if (newest !== null) pruneTrack(state.float, holdMs, newest - 7 * DAY, 3000);
}

/**
 * A copy the evaluator may change: the float's samples are shared (immutable tuples), so a reading
 * costs no copy of the whole track.
 */
function copyState(s: HoldingState): HoldingState {
  return {
    ...s,
    float: copyTrack(s.float),
    floatHandled: s.floatHandled.slice(),
    alert: s.alert ? { ...s.alert } : null,
  };
}

export const holdingEvaluator: Evaluator<HoldingState, typeof RULE, Params> = {
  rule: RULE,
  init(ctx: RuleContext<Params>, deviceId?: string): HoldingState {
    return deviceState(RULE, ctx, deviceId, {
      newestLevelTs: null,
      sawLevel: false,
      float: newTrack(),
      tickHorizon: null,
      floatHandled: [],
      armed: true,
      alert: null,
    });
  },
  evaluate(prev: HoldingState, input: RuleInput, ctx: RuleContext<Params>) {
    const effects: Effect<typeof RULE>[] = [];
    if (input.type === 'tick') {
      if (prev.tickHorizon !== null && input.now <= prev.tickHorizon) return { state: prev, effects };
      const state = copyState(prev);
      state.tickHorizon = input.now;
      checkFloat(state, ctx, effects);
      return effects.length ? { state, effects } : { state: prev, effects };
    }
    if (input.type === 'alert-closed') {
      if (prev.alert?.key !== input.key) return { state: prev, effects };
      const state = copyState(prev);
      state.alert = null;
      state.armed = false;
      return { state, effects };
    }
    if (input.type !== 'reading') return { state: prev, effects };
    const r = input.reading;
    if (r.siteId !== prev.siteId || r.deviceId !== prev.deviceId) return { state: prev, effects };
    const level = r.values.levelIn;
    const hw = r.alarms?.highWater;
    if (level === undefined && hw === undefined) return { state: prev, effects };
    const state = copyState(prev);
    const high = deviceOf(ctx.site, state.deviceId)?.highLevelIn;
    if (level !== undefined && (state.newestLevelTs === null || r.ts > state.newestLevelTs)) {
      state.newestLevelTs = r.ts;
      state.sawLevel = true;
      if (high !== undefined) {
        if (state.alert) {
          const pk = state.alert.peak;
          if (!pk || level > pk.levelIn) state.alert.peak = { levelIn: level, ts: r.ts };
          if (level <= HOLDING_PUMPED_FRACTION * high)
            resolve(state, r.ts, ctx, effects, {
              peak: pk ? { levelIn: pk.levelIn, at: iso(pk.ts) } : null,
              after: { levelIn: level, at: iso(r.ts) },
              highLevelIn: high,
            });
        } else if (level >= high) {
          if (state.armed) {
            open(state, r.ts, `level ${level} in reached its high level of ${high} in`, ctx, effects, {
              levelIn: level,
              highLevelIn: high,
            });
            state.alert!.peak = { levelIn: level, ts: r.ts };
          }
        } else if (level <= HOLDING_PUMPED_FRACTION * high) state.armed = true;
      }
    }
    if (hw !== undefined && addSample(state.float, r.ts, hw, r.receivedAt) === 'added')
      checkFloat(state, ctx, effects);
    return { state, effects };
  },
};
