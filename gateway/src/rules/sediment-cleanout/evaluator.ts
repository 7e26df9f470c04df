/**
 * `sediment-cleanout`: sediment shall be removed from a sediment trap or pond whenever its design
 * capacity has been reduced by 50% (`sedimentCleanoutFraction`; law 001, maintenance during construction,
 * A(1)). One evaluator per sediment-trap device, on `values.sedimentIn`. Capacity (depth or stage-storage
 * table), its alerts and edge cases: README.md in this folder.
 */
import type { DeviceView } from '../context.ts';
import { alertKey, openAlert } from '../effects.ts';
import { type DeviceStateHead, deviceState } from '../state.ts';
import type { Effect, Evaluator, RuleContext, RuleInput } from '../types.ts';
import { deviceLabel, deviceOf, formatLocal, iso, round6 } from '../util.ts';
import type { Params } from './params.ts';

export const RULE = 'sediment-cleanout' as const;
/** An open alert is updated when the fill grows by this much since the last report. */
export const SEDIMENT_UPDATE_STEP = 0.05;

export interface SedimentState extends DeviceStateHead {
  newestTs: number | null;
  last: { depth: number; ts: number } | null;
  /** False right after a cleanout or manual close, until a reading below the threshold. */
  armed: boolean;
  episode: {
    key: string;
    at: number;
    peak: { depth: number; ts: number };
    reportedFraction: number;
  } | null;
  lateIgnored: number;
}

/** Linear interpolation in a stage-storage table (ascending depths). */
export function stageVolume(table: ReadonlyArray<readonly [number, number]>, depth: number): number {
  const first = table[0]!;
  if (depth <= first[0]) return first[0] > 0 ? (first[1] * Math.max(0, depth)) / first[0] : first[1];
  for (let i = 1; i < table.length; i++) {
    const [d1, v1] = table[i]!;
    const [d0, v0] = table[i - 1]!;
    if (depth <= d1) return v0 + ((v1 - v0) * (depth - d0)) / (d1 - d0);
  }
  const [d1, v1] = table[table.length - 1]!;
  const [d0, v0] = table[table.length - 2]!;
  return v1 + ((v1 - v0) * (depth - d1)) / (d1 - d0);
}

export function designDepth(dev: DeviceView<Params['device']>): number | undefined {
  return dev.designDepthIn ?? dev.stageStorage?.[dev.stageStorage.length - 1]?.[0];
}

/** Fraction of the design capacity filled with sediment at `depth` (0.5 = half). */
export function fractionFilled(dev: DeviceView<Params['device']>, depth: number): number | undefined {
  const design = designDepth(dev);
  if (design === undefined) return undefined;
  if (dev.stageStorage) {
    const full = stageVolume(dev.stageStorage, design);
    return full > 0 ? stageVolume(dev.stageStorage, depth) / full : undefined;
  }
  return depth / design;
}

function pct(f: number): string {
  return `${Math.round(f * 100)}%`;
}

export const sedimentEvaluator: Evaluator<SedimentState, typeof RULE, Params> = {
  rule: RULE,
  init(ctx: RuleContext<Params>, deviceId?: string): SedimentState {
    return deviceState(RULE, ctx, deviceId, {
      newestTs: null,
      last: null,
      armed: true,
      episode: null,
      lateIgnored: 0,
    });
  },
  evaluate(prev: SedimentState, input: RuleInput, ctx: RuleContext<Params>) {
    const effects: Effect<typeof RULE>[] = [];
    if (input.type === 'alert-closed') {
      if (!prev.episode || prev.episode.key !== input.key) return { state: prev, effects };
      const state = structuredClone(prev);
      state.episode = null;
      state.armed = false;
      return { state, effects };
    }
    if (input.type !== 'reading') return { state: prev, effects };
    const r = input.reading;
    const depth = r.values.sedimentIn;
    if (r.siteId !== prev.siteId || r.deviceId !== prev.deviceId || depth === undefined)
      return { state: prev, effects };
    const dev = deviceOf(ctx.site, prev.deviceId);
    if (!dev) return { state: prev, effects };
    const state = structuredClone(prev);
    if (state.newestTs !== null && r.ts <= state.newestTs) {
      state.lateIgnored++;
      return { state, effects };
    }
    state.newestTs = r.ts;
    const before = state.last;
    state.last = { depth, ts: r.ts };
    const frac = fractionFilled(dev, depth);
    const design = designDepth(dev);
    if (frac === undefined || design === undefined) return { state, effects };
    const threshold = ctx.site.sedimentCleanoutFraction;
    const above = frac >= threshold - 1e-9;
    const label = deviceLabel(ctx.site, state.deviceId);
    const tz = ctx.timezone;
    const basis = dev.stageStorage ? 'of the design volume (stage-storage table)' : 'of the design depth';

    const ep = state.episode;
    if (ep) {
      if (depth > ep.peak.depth) ep.peak = { depth, ts: r.ts };
      const drop = ep.peak.depth - depth;
      if (!above && drop >= ctx.site.cleanoutDropFraction * design - 1e-9) {
        effects.push({
          type: 'resolve',
          key: ep.key,
          at: r.ts,
          message:
            `Cleanout seen at ${label}: sediment fell from ${ep.peak.depth} in to ${depth} in ` +
            `(${pct(frac)} ${basis}) by ${formatLocal(r.ts, tz)}.`,
          evidence: {
            cleanout: true,
            peak: { depthIn: ep.peak.depth, at: iso(ep.peak.ts) },
            before: before ? { depthIn: before.depth, at: iso(before.ts) } : null,
            after: { depthIn: depth, at: iso(r.ts), fraction: round6(frac) },
            dropIn: round6(drop),
            minDropIn: round6(ctx.site.cleanoutDropFraction * design),
          },
        });
        state.episode = null;
        state.armed = false;
      } else if (above && frac >= ep.reportedFraction + SEDIMENT_UPDATE_STEP) {
        ep.reportedFraction = frac;
        effects.push({
          type: 'update',
          key: ep.key,
          at: r.ts,
          message: `Sediment trap ${label} is ${pct(frac)} full ${basis} (${depth} in): remove sediment.`,
          evidence: { depthIn: depth, fraction: round6(frac), at: iso(r.ts) },
        });
      }
      return { state, effects };
    }
    if (!above) {
      state.armed = true;
      return { state, effects };
    }
    if (!state.armed) return { state, effects };
    const key = alertKey(RULE, state, r.ts);
    state.episode = { key, at: r.ts, peak: { depth, ts: r.ts }, reportedFraction: frac };
    effects.push(
      openAlert(RULE, state, {
        key,
        at: r.ts,
        message:
          `Sediment trap ${label} has lost ${pct(frac)} ${basis} (${depth} in of sediment, threshold ` +
          `${pct(threshold)}): remove sediment (law 001, maintenance during construction, A(1)).`,
        evidence: {
          depthIn: depth,
          fraction: round6(frac),
          threshold,
          designDepthIn: design,
          stageStorage: dev.stageStorage !== undefined,
          at: iso(r.ts),
        },
      }),
    );
    return { state, effects };
  },
};
