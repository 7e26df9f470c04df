/**
 * `device-silent`: a device that has sent nothing for longer than it should leaves a gap in the
 * evidence; a silence is a gap, never a dry day or a quiet tank. The product's own rule, one evaluator per
 * device. Silence is measured on the newest source ts and the newest arrival together (ticks carry arrival
 * time). Its alerts, the gaps on record and edge cases: README.md in this folder.
 */
import type { DeviceKind } from '../../../../shared/src/telemetry.ts';
import { alertKey, openAlert, resolveAlert } from '../effects.ts';
import { type DeviceStateHead, deviceState } from '../state.ts';
import type { Effect, Evaluator, RuleContext, RuleInput } from '../types.ts';
import { deviceLabel, deviceOf, formatDuration, formatLocal, iso, MINUTE } from '../util.ts';
import type { Params } from './params.ts';

export const RULE = 'device-silent' as const;

export function defaultSilentMinutes(kind: DeviceKind | undefined): number {
  return kind === 'rain-gauge' ? 60 : 120;
}

export interface SilentState extends DeviceStateHead {
  newestTs: number | null;
  newestReceivedAt: number | null;
  firstTick: number | null;
  open: { key: string; from: number; detectedAt: number } | null;
  suppressed: boolean;
}

function silentMs(state: SilentState, ctx: RuleContext<Params>): number {
  const d = deviceOf(ctx.site, state.deviceId);
  return (d?.silentAfterMinutes ?? defaultSilentMinutes(d?.kind)) * MINUTE;
}

function gapEffects(
  state: SilentState,
  key: string,
  from: number,
  to: number,
  receivedAt: number,
  ctx: RuleContext<Params>,
  limit: number,
): Effect<typeof RULE> {
  return resolveAlert(key, to, {
    message:
      `Device ${deviceLabel(ctx.site, state.deviceId)} reported again: no evidence from ` +
      `${formatLocal(from, ctx.timezone)} to ${formatLocal(to, ctx.timezone)} (${formatDuration(to - from)}).`,
    evidence: {
      gap: { from: iso(from), to: iso(to) },
      gapMinutes: Math.round((to - from) / MINUTE),
      receivedAt: iso(receivedAt),
      backfilled: receivedAt - to >= limit,
      silentAfterMinutes: limit / MINUTE,
    },
  });
}

function openEffect(
  state: SilentState,
  from: number,
  now: number,
  ctx: RuleContext<Params>,
  limit: number,
  key: string,
) {
  const heard = state.newestTs !== null;
  return openAlert(RULE, state, {
    key,
    at: from,
    message: heard
      ? `No data from device ${deviceLabel(ctx.site, state.deviceId)} since ${formatLocal(from, ctx.timezone)}: a gap in the evidence, not a quiet period.`
      : `No data from device ${deviceLabel(ctx.site, state.deviceId)} since monitoring began ${formatLocal(from, ctx.timezone)}: a gap in the evidence.`,
    evidence: {
      lastReadingAt: state.newestTs !== null ? iso(state.newestTs) : null,
      lastReceivedAt: state.newestReceivedAt !== null ? iso(state.newestReceivedAt) : null,
      noEvidenceSince: iso(from),
      detectedAt: iso(now),
      silentAfterMinutes: limit / MINUTE,
    },
  });
}

export const silentEvaluator: Evaluator<SilentState, typeof RULE, Params> = {
  rule: RULE,
  init(ctx: RuleContext<Params>, deviceId?: string): SilentState {
    return deviceState(RULE, ctx, deviceId, {
      newestTs: null,
      newestReceivedAt: null,
      firstTick: null,
      open: null,
      suppressed: false,
    });
  },
  evaluate(prev: SilentState, input: RuleInput, ctx: RuleContext<Params>) {
    const effects: Effect<typeof RULE>[] = [];
    const limit = silentMs(prev, ctx);
    switch (input.type) {
      case 'reading': {
        const r = input.reading;
        if (r.siteId !== prev.siteId || r.deviceId !== prev.deviceId) return { state: prev, effects };
        // A shallow copy is enough: this branch replaces `open`, it never changes it in place. It runs
        // for every reading of every device, so it must stay cheap.
        const state: SilentState = { ...prev };
        // After a person closed the silence, the gap it covered is on record: no second record of it.
        const acknowledged = state.suppressed;
        state.suppressed = false;
        state.newestReceivedAt = Math.max(state.newestReceivedAt ?? r.receivedAt, r.receivedAt);
        const before = state.newestTs;
        if (before !== null && r.ts <= before) return { state, effects };
        state.newestTs = r.ts;
        if (state.open) {
          if (r.ts > state.open.from) {
            effects.push(gapEffects(state, state.open.key, state.open.from, r.ts, r.receivedAt, ctx, limit));
            state.open = null;
          }
        } else if (!acknowledged && before !== null && r.ts - before >= limit) {
          const key = alertKey(RULE, state, before);
          state.newestTs = before;
          effects.push(openEffect(state, before, r.receivedAt, ctx, limit, key));
          state.newestTs = r.ts;
          effects.push(gapEffects(state, key, before, r.ts, r.receivedAt, ctx, limit));
        }
        return { state, effects };
      }
      case 'tick': {
        const now = input.now;
        if (prev.open || prev.suppressed) return { state: prev, effects };
        const firstTick = prev.firstTick ?? now;
        const from = prev.newestTs ?? firstTick;
        const heard = prev.newestReceivedAt ?? firstTick;
        if (now - from < limit || now - heard < limit) {
          if (prev.firstTick !== null) return { state: prev, effects };
          return { state: { ...prev, firstTick }, effects };
        }
        const state = structuredClone(prev);
        state.firstTick = firstTick;
        const key = alertKey(RULE, state, from);
        state.open = { key, from, detectedAt: now };
        effects.push(openEffect(state, from, now, ctx, limit, key));
        return { state, effects };
      }
      case 'alert-closed': {
        if (prev.open?.key !== input.key) return { state: prev, effects };
        const state = structuredClone(prev);
        state.open = null;
        state.suppressed = true;
        return { state, effects };
      }
      default:
        return { state: prev, effects };
    }
  },
};
