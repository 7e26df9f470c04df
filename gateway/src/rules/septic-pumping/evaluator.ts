/**
 * `septic-pumping`: "The contents of the septic tank should be pumped every 2-3 years or when the total
 * depth of sludge and scum exceeds one third of the liquid depth of the tank" (law 000, appendix VII). One
 * evaluator per tank device (septic-tank or septic-panel) on septic and alternative-system sites, and one
 * for the site itself, which keeps the duty while no tank device does (`site.ts`): a level alert, a time
 * alert, and the pump-out that resolves both. Details and edge cases: README.md in this folder.
 */
import { alertKey, openAlert, resolveAlert, supersededAlert } from '../effects.ts';
import { deviceState, type SiteStateHead, siteState } from '../state.ts';
import type { Effect, Evaluator, RuleContext, RuleInput } from '../types.ts';
import { deviceOf, formatLocal, iso, onRecord, recordId, round6 } from '../util.ts';
import { answered, askLastPumpOut, timeAlert } from './asked.ts';
import { pumpingClock } from './clock.ts';
import type { Params } from './params.ts';
import { capital, handOver, primaryTank, tankWords } from './site.ts';

export const RULE = 'septic-pumping' as const;
/** Inspection kinds that record a pump-out ('cleanout' is the engine's kind for it). */
export const PUMPOUT_KINDS = ['cleanout', 'pump-out', 'pumpout', 'pumping'];

/** Whether an inspection of this kind records a pump-out. */
export function isPumpOut(kind: string): boolean {
  return PUMPOUT_KINDS.includes(kind);
}
/** A pump-out leaves at most this fraction of the threshold in sludge + scum. */
export const PUMPED_FRACTION_OF_THRESHOLD = 0.25;
export const SEPTIC_UPDATE_STEP = 0.05;

export interface SepticState extends SiteStateHead {
  /** The tank device; none for the site's own binding, which keeps the duty while no device does (`site.ts`). */
  deviceId?: string;
  newestTs: number | null;
  sludge: number | null;
  scum: number | null;
  peakSum: number;
  lastPumpedSeen: number | null;
  armed: boolean;
  level: { key: string; at: number; reported: number } | null;
  /** The time alert: it began at the reminder (`at`), counted from the pump-out `basis`. */
  time: { key: string; at: number; basis: number } | null;
  /**
   * The duty that asks for the last pump-out while none is on record (added compatibly: a state stored
   * without it has none open).
   */
  unknown?: { key: string; at: number } | null;
  /** The site's binding: how many times a tank device took its duties over (its time keys then differ). */
  handovers?: number;
}

/** Whether this device (none: the site itself, when it has no tank device) runs the time-based part. */
export function isPrimaryTank(ctx: RuleContext<Params>, deviceId: string | undefined): boolean {
  return primaryTank(ctx) === deviceId;
}

function lastPumped(state: SepticState, ctx: RuleContext<Params>): number | null {
  const cfg = ctx.site.septicPumping.lastPumpedAt;
  const fromCfg = cfg ? Date.parse(cfg) : null;
  if (fromCfg === null) return state.lastPumpedSeen;
  if (state.lastPumpedSeen === null) return fromCfg;
  return Math.max(fromCfg, state.lastPumpedSeen);
}

/**
 * A pump-out (the state is the caller's copy): it meets the duties that began at or before it, and the
 * time clock restarts from it. A time alert counted from an earlier pump-out that it falls before (the
 * tank was pumped before the alert's years were up: a record logged late, or the site's history) is
 * superseded by the record, not met.
 */
function pumpedOut(
  state: SepticState,
  at: number,
  how: Record<string, unknown>,
  ctx: RuleContext<Params>,
  effects: Effect<typeof RULE>[],
  /** When the pump-out became known (a record's time): the question of the last pump-out is answered then. */
  knownAt: number = at,
): void {
  const tank = tankWords(ctx, state.deviceId);
  state.lastPumpedSeen = Math.max(state.lastPumpedSeen ?? at, at);
  const when = formatLocal(at, ctx.timezone);
  if (state.unknown) {
    effects.push(answered(state.unknown, Math.max(knownAt, state.unknown.at), at, how, tank, ctx));
    state.unknown = null;
  }
  const resolve = (a: { key: string }) =>
    effects.push(
      resolveAlert(a.key, at, {
        message: `${capital(tank)} pumped out ${when}.`,
        evidence: { pumpedAt: iso(at), ...how },
      }),
    );
  // A pump-out meets the duties that began at or before it: the level alert's from its reading, the
  // time alert's from the pump-out it counts from. One dated earlier (logged late) leaves them open.
  if (state.level && state.level.at <= at) {
    resolve(state.level);
    state.level = null;
  }
  if (state.time && state.time.basis <= at) {
    const t = state.time;
    if (at < t.at)
      effects.push(
        supersededAlert(t.key, t.at, {
          message:
            `Superseded by the record: ${tank} was pumped out ${when}, before its ${ctx.site.septicPumping.maxYears} ` +
            `years from ${formatLocal(t.basis, ctx.timezone)} were up; the clock runs from that pump-out.`,
          evidence: { pumpedAt: iso(at), lastPumpedAt: iso(t.basis), ...how },
        }),
      );
    else resolve(t);
    state.time = null;
  }
  if (state.level === null) {
    state.peakSum = 0;
    state.armed = false;
  }
}

/** The last pump-out of the site's history, when it is newer than the last one the tank's state knows. */
function pumpOutOnRecord(state: SepticState, ctx: RuleContext<Params>, now: number): number | undefined {
  const at = onRecord(ctx.site, 'lastPumpOut');
  if (at === undefined || at > now) return undefined;
  return state.lastPumpedSeen === null || at > state.lastPumpedSeen ? at : undefined;
}

export const septicEvaluator: Evaluator<SepticState, typeof RULE, Params> = {
  rule: RULE,
  init(ctx: RuleContext<Params>, deviceId?: string): SepticState {
    const fields = {
      newestTs: null,
      sludge: null,
      scum: null,
      peakSum: 0,
      lastPumpedSeen: null,
      armed: true,
      level: null,
      time: null,
    };
    // The site's own binding (no device) keeps the duty while the site has no tank device.
    return deviceId === undefined ? siteState(ctx, fields) : deviceState(RULE, ctx, deviceId, fields);
  },
  evaluate(prev: SepticState, input: RuleInput, ctx: RuleContext<Params>) {
    const effects: Effect<typeof RULE>[] = [];
    const sp = ctx.site.septicPumping;
    const tank = tankWords(ctx, prev.deviceId);
    const label = capital(tank);
    switch (input.type) {
      case 'reading': {
        const r = input.reading;
        const { sludgeIn, scumIn } = r.values;
        if (r.siteId !== prev.siteId || r.deviceId !== prev.deviceId) return { state: prev, effects };
        if (sludgeIn === undefined && scumIn === undefined) return { state: prev, effects };
        if (prev.newestTs !== null && r.ts <= prev.newestTs) return { state: prev, effects };
        const state = structuredClone(prev);
        state.newestTs = r.ts;
        const before = (state.sludge ?? 0) + (state.scum ?? 0);
        if (sludgeIn !== undefined) state.sludge = sludgeIn;
        if (scumIn !== undefined) state.scum = scumIn;
        const sum = (state.sludge ?? 0) + (state.scum ?? 0);
        const depth = deviceOf(ctx.site, state.deviceId)?.liquidDepthIn;
        if (depth === undefined) return { state, effects };
        const threshold = sp.fraction * depth;
        const pumpedMax = PUMPED_FRACTION_OF_THRESHOLD * threshold;
        if (sum <= pumpedMax && state.peakSum - sum >= pumpedMax) {
          pumpedOut(
            state,
            r.ts,
            { fromData: true, beforeIn: round6(before), afterIn: round6(sum), peakIn: round6(state.peakSum) },
            ctx,
            effects,
          );
          return { state, effects };
        }
        state.peakSum = Math.max(state.peakSum, sum);
        const frac = sum / depth;
        if (sum < threshold - 1e-9) {
          state.armed = true;
          return { state, effects };
        }
        const ev = {
          sludgeIn: state.sludge,
          scumIn: state.scum,
          totalIn: round6(sum),
          liquidDepthIn: depth,
          fractionOfLiquidDepth: round6(frac),
          threshold: round6(sp.fraction),
          at: iso(r.ts),
        };
        if (state.level) {
          if (frac >= state.level.reported + SEPTIC_UPDATE_STEP) {
            state.level.reported = frac;
            effects.push({
              type: 'update',
              key: state.level.key,
              at: r.ts,
              message: `${label}: sludge + scum ${round6(sum)} in, ${Math.round(frac * 100)}% of the liquid depth: pump the tank.`,
              evidence: ev,
            });
          }
          return { state, effects };
        }
        if (!state.armed) return { state, effects };
        const key = alertKey(RULE, state, 'level', r.ts);
        state.level = { key, at: r.ts, reported: frac };
        effects.push(
          openAlert(RULE, state, {
            key,
            at: r.ts,
            message:
              `${label}: sludge + scum ${round6(sum)} in is ${Math.round(frac * 100)}% of the ${depth} in liquid depth ` +
              `(one third or more): pump the tank (law 000, appendix VII).`,
            evidence: ev,
          }),
        );
        return { state, effects };
      }
      case 'tick': {
        // The site's history first: a pump-out on record newer than the last one known is taken as a
        // logged one would be.
        const rec = pumpOutOnRecord(prev, ctx, input.now);
        const state = rec === undefined ? prev : structuredClone(prev);
        if (rec !== undefined)
          pumpedOut(
            state,
            rec,
            { onRecord: true, recordId: recordId('lastPumpOut', rec) },
            ctx,
            effects,
            input.now,
          );
        const keeper = primaryTank(ctx);
        if (state.deviceId === undefined && keeper !== undefined && (state.unknown || state.time)) {
          // A tank device now keeps the site's duty: the site's open duties are handed over to it.
          const next = state === prev ? structuredClone(prev) : state;
          handOver(next, keeper, ctx, effects);
          return { state: next, effects };
        }
        if (state.time || keeper !== state.deviceId) return { state, effects };
        const basis = lastPumped(state, ctx);
        if (basis === null) {
          // No pump-out on record: never silent, a duty asks for the last one at once.
          if (state.unknown) return { state, effects };
          const next = state === prev ? structuredClone(prev) : state;
          effects.push(askLastPumpOut(next, input.now, tank, ctx));
          return { state: next, effects };
        }
        if (state.unknown) {
          // The configuration now names the last pump-out: the question is answered.
          const next = state === prev ? structuredClone(prev) : state;
          pumpedOut(next, basis, { configured: true }, ctx, effects, input.now);
          return { state: next, effects };
        }
        const clock = pumpingClock(basis, sp, ctx.timezone);
        if (input.now < clock.remindAt) return { state, effects };
        const next = state === prev ? structuredClone(prev) : state;
        const handed = next.handovers ? [`h${next.handovers}`] : [];
        const key = alertKey(RULE, next, 'time', basis, ...handed);
        next.time = { key, at: clock.remindAt, basis };
        effects.push(timeAlert(next, basis, clock, tank, ctx));
        return { state: next, effects };
      }
      case 'inspection': {
        if (input.siteId !== prev.siteId || !isPumpOut(input.kind)) return { state: prev, effects };
        const state = structuredClone(prev);
        const hauler = input.details?.hauler;
        pumpedOut(
          state,
          input.at,
          {
            inspectionId: input.id,
            by: input.inspector,
            ...(hauler ? { hauler: hauler.name, haulerPermit: hauler.permit } : {}),
          },
          ctx,
          effects,
          input.receivedAt ?? input.at,
        );
        return { state, effects };
      }
      case 'alert-closed': {
        if (prev.unknown?.key === input.key) {
          // Closed by a person with no date: the clock runs from then, so the tank is not silent.
          const state = structuredClone(prev);
          state.unknown = null;
          state.lastPumpedSeen = Math.max(state.lastPumpedSeen ?? input.at, input.at);
          return { state, effects };
        }
        if (prev.level?.key !== input.key && prev.time?.key !== input.key) return { state: prev, effects };
        const state = structuredClone(prev);
        if (state.level?.key === input.key) {
          state.level = null;
          state.armed = false;
        }
        // A time alert closed by a person: the clock restarts then (no pump-out date is known).
        if (state.time?.key === input.key) {
          state.time = null;
          state.lastPumpedSeen = Math.max(state.lastPumpedSeen ?? input.at, input.at);
        }
        return { state, effects };
      }
      default:
        return { state: prev, effects };
    }
  },
};
