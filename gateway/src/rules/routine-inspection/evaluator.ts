/**
 * `routine-inspection`: on an active construction site an inspection report is due every
 * `routineInspectionDays` (7) x 24 h since the last one, weekends included (law 001, maintenance during
 * construction, A(2)). One evaluator per construction site. The clock, its alerts and edge cases: README.md
 * in this folder.
 */
import { alertKey, openAlert } from '../effects.ts';
import { type SiteStateHead, siteState } from '../state.ts';
import type { Effect, Evaluator, RuleContext, RuleInput } from '../types.ts';
import { DAY, formatLocal, isErosionInspection, iso } from '../util.ts';
import type { Params } from './params.ts';

export const RULE = 'routine-inspection' as const;

export interface RoutineState extends SiteStateHead {
  last: { at: number; id: string; kind: string; inspector: string } | null;
  period: { start: number; key: string; dueAt: number; open: boolean } | null;
  seen: string[];
}

function openPeriod(
  state: RoutineState,
  start: number,
  ctx: RuleContext<Params>,
  effects: Effect<typeof RULE>[],
  why: string,
): void {
  const days = ctx.site.routineInspectionDays;
  const dueAt = start + days * DAY;
  const key = alertKey(RULE, state, start);
  state.period = { start, key, dueAt, open: true };
  effects.push(
    openAlert(RULE, state, {
      key,
      at: start,
      dueAt,
      message:
        `Routine erosion and sediment control inspection report due by ${formatLocal(dueAt, ctx.timezone)} ` +
        `(every ${days} days, weekends included; ${why}).`,
      evidence: {
        periodStart: iso(start),
        dueAt: iso(dueAt),
        days,
        lastInspection: state.last
          ? { id: state.last.id, at: iso(state.last.at), kind: state.last.kind }
          : null,
      },
    }),
  );
}

export const routineEvaluator: Evaluator<RoutineState, typeof RULE, Params> = {
  rule: RULE,
  init(ctx: RuleContext<Params>): RoutineState {
    return siteState(ctx, { last: null, period: null, seen: [] });
  },
  evaluate(prev: RoutineState, input: RuleInput, ctx: RuleContext<Params>) {
    const effects: Effect<typeof RULE>[] = [];
    const active = ctx.site.active;
    switch (input.type) {
      case 'tick': {
        if (!active) {
          if (!prev.period?.open) return { state: prev, effects };
          const state = structuredClone(prev);
          effects.push({
            type: 'resolve',
            key: state.period!.key,
            at: input.now,
            message: 'The site is no longer active: no routine inspection is due.',
            evidence: { inactive: true },
          });
          state.period = null;
          return { state, effects };
        }
        if (prev.period) return { state: prev, effects };
        const state = structuredClone(prev);
        if (state.last) openPeriod(state, state.last.at, ctx, effects, 'since the last inspection');
        else openPeriod(state, input.now, ctx, effects, 'no inspection on record: the clock starts now');
        return { state, effects };
      }
      case 'inspection': {
        if (input.siteId !== prev.siteId || !isErosionInspection(input.kind) || prev.seen.includes(input.id))
          return { state: prev, effects };
        const state = structuredClone(prev);
        state.seen.push(input.id);
        if (state.seen.length > 50) state.seen.splice(0, state.seen.length - 50);
        if (state.last && input.at <= state.last.at) return { state, effects };
        state.last = { at: input.at, id: input.id, kind: input.kind, inspector: input.inspector };
        // An inspection dated before the current period began (its clock started later: at the first
        // tick, or when a person closed the period before) does not meet it; it is the last on record.
        if (state.period && input.at < state.period.start) return { state, effects };
        if (state.period?.open) {
          const p = state.period;
          effects.push({
            type: 'resolve',
            key: p.key,
            at: input.at,
            message: `Inspected ${formatLocal(input.at, ctx.timezone)} by ${input.inspector} (${input.kind}).`,
            evidence: {
              inspectionId: input.id,
              inspectionKind: input.kind,
              inspector: input.inspector,
              inspectedAt: iso(input.at),
              dueAt: iso(p.dueAt),
              onTime: input.at <= p.dueAt,
            },
          });
        }
        state.period = null;
        if (active) openPeriod(state, input.at, ctx, effects, 'since the last inspection');
        return { state, effects };
      }
      case 'alert-closed': {
        if (!prev.period || prev.period.key !== input.key || !prev.period.open)
          return { state: prev, effects };
        const state = structuredClone(prev);
        state.period = null;
        if (active) openPeriod(state, input.at, ctx, effects, 'the previous period was closed by a person');
        return { state, effects };
      }
      default:
        return { state: prev, effects };
    }
  },
};
