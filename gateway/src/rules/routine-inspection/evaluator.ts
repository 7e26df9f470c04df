/**
 * `routine-inspection`: on an active construction site an inspection report is due every
 * `routineInspectionDays` (7) days since the last one, weekends included (law 001, maintenance during
 * construction, A(2)): by the end of the 7th local day after the day of the last one (`shared/src/days.ts`). One evaluator per construction site. The clock runs from the latest inspection on
 * record: logged, or in the site's history (`history.lastRoutineInspection`). The clock, its alerts and
 * edge cases: README.md in this folder.
 */

import { dateInWords, localDateOf, withinDays } from '../../../../shared/src/days.ts';
import { alertKey, openAlert, supersededAlert } from '../effects.ts';
import type { SiteStateHead } from '../state.ts';
import type { Effect, Evaluator, RuleContext, RuleInput } from '../types.ts';
import { dueBefore, formatLocal, isErosionInspection, iso, ON_RECORD, onRecord, recordId } from '../util.ts';
import type { Params } from './params.ts';

export const RULE = 'routine-inspection' as const;

/** An inspection the clock runs from: logged (its id), or the site's history (`history:…` id). */
interface Inspection {
  at: number;
  id: string;
  kind: string;
  inspector: string;
}

/**
 * The state's version: 2 counts the days as the law counts them (the 7th day after the last inspection's
 * day, whole); version 1 gave start + 7 x 24 h. `upgradeRoutineState` marks a version 1 state `recount`:
 * its open period gets the due time counted so at the next tick.
 */
export const ROUTINE_STATE_VERSION = 2;

export interface RoutineState extends Omit<SiteStateHead, 'v'> {
  v: typeof ROUTINE_STATE_VERSION;
  /** Upgraded from version 1: the open period's due time is to be counted again (at the next tick). */
  recount?: true;
  last: Inspection | null;
  period: { start: number; key: string; dueAt: number; open: boolean } | null;
  seen: string[];
}

/** The last routine inspection of the site's history, as an inspection (none, or not yet at `now`). */
export function routineOnRecord(ctx: RuleContext<Params>, now: number): Inspection | undefined {
  const at = onRecord(ctx.site, 'lastRoutineInspection');
  if (at === undefined || at > now) return undefined;
  return { at, id: recordId('lastRoutineInspection', at), kind: 'routine', inspector: ON_RECORD };
}

const fromHistory = (i: Inspection) => i.id.startsWith('history:');

function openPeriod(
  state: RoutineState,
  start: number,
  ctx: RuleContext<Params>,
  effects: Effect<typeof RULE>[],
  why: string,
): void {
  const days = ctx.site.routineInspectionDays;
  const dueAt = dueBefore(withinDays(start, days, ctx.timezone));
  const key = alertKey(RULE, state, start);
  state.period = { start, key, dueAt, open: true };
  effects.push(
    openAlert(RULE, state, {
      key,
      at: start,
      dueAt,
      message:
        `Routine erosion and sediment control inspection report due by ${formatLocal(dueAt, ctx.timezone)} ` +
        `(every ${days} days: by the end of the ${ordinal(days)} day after ` +
        `${dateInWords(localDateOf(start, ctx.timezone))}, weekends included; ${why}).`,
      evidence: {
        periodStart: iso(start),
        dueAt: iso(dueAt),
        days,
        lastInspection: state.last
          ? {
              id: state.last.id,
              at: iso(state.last.at),
              kind: state.last.kind,
              ...(fromHistory(state.last) ? { onRecord: true } : {}),
            }
          : null,
      },
    }),
  );
}

/**
 * An inspection newer than the last on record (the state is the caller's copy): it becomes the last, it
 * meets the open period when it falls in it, or supersedes it when it is older than the period's start
 * (the period ran from a start the record shows was not the last inspection), and the next period runs
 * from it: due 7 x 24 h after it, overdue at once when that has passed.
 */
function inspected(
  state: RoutineState,
  insp: Inspection,
  ctx: RuleContext<Params>,
  effects: Effect<typeof RULE>[],
): void {
  state.last = insp;
  const p = state.period;
  const tz = ctx.timezone;
  const what = fromHistory(insp)
    ? `the inspection of ${formatLocal(insp.at, tz)} in ${ON_RECORD}`
    : `the inspection of ${formatLocal(insp.at, tz)} by ${insp.inspector} (${insp.kind})`;
  const record = {
    inspectionId: insp.id,
    inspectionKind: insp.kind,
    inspector: insp.inspector,
    inspectedAt: iso(insp.at),
    ...(fromHistory(insp) ? { onRecord: true } : {}),
  };
  if (p?.open && insp.at < p.start)
    effects.push(
      supersededAlert(p.key, p.start, {
        message:
          `Superseded by the record: ${what} is older than this period's start ` +
          `(${formatLocal(p.start, tz)}); the clock runs from that inspection.`,
        evidence: { ...record, periodStart: iso(p.start), dueAt: iso(p.dueAt) },
      }),
    );
  else if (p?.open)
    effects.push({
      type: 'resolve',
      key: p.key,
      at: insp.at,
      message: fromHistory(insp)
        ? `Inspected ${formatLocal(insp.at, tz)} (${ON_RECORD}).`
        : `Inspected ${formatLocal(insp.at, tz)} by ${insp.inspector} (${insp.kind}).`,
      evidence: { ...record, dueAt: iso(p.dueAt), onTime: insp.at <= p.dueAt },
    });
  state.period = null;
  if (ctx.site.active)
    openPeriod(
      state,
      insp.at,
      ctx,
      effects,
      fromHistory(insp) ? 'since the last inspection on record' : 'since the last inspection',
    );
}

export const routineEvaluator: Evaluator<RoutineState, typeof RULE, Params> = {
  rule: RULE,
  init(ctx: RuleContext<Params>): RoutineState {
    return { v: ROUTINE_STATE_VERSION, siteId: ctx.site.id, last: null, period: null, seen: [] };
  },
  evaluate(prev: RoutineState, input: RuleInput, ctx: RuleContext<Params>) {
    const effects: Effect<typeof RULE>[] = [];
    const active = ctx.site.active;
    switch (input.type) {
      case 'tick': {
        if (prev.recount) return recount(prev, ctx);
        // The site's history first: an inspection on record newer than the last one is taken as a
        // logged one would be, so a site added with its history starts its clock from it.
        const rec = routineOnRecord(ctx, input.now);
        if (rec && (!prev.last || rec.at > prev.last.at)) {
          const state = structuredClone(prev);
          inspected(state, rec, ctx, effects);
          return { state, effects };
        }
        if (!active) {
          if (!prev.period?.open) return { state: prev, effects };
          const state = structuredClone(prev);
          closeInactive(prev, input.now, effects);
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
        // One older than the latest on record changes nothing: the clock runs from the latest.
        if (state.last && input.at <= state.last.at) return { state, effects };
        inspected(
          state,
          { at: input.at, id: input.id, kind: input.kind, inspector: input.inspector },
          ctx,
          effects,
        );
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

/** The open period of a site no longer active: resolved, no routine inspection is due. */
function closeInactive(prev: RoutineState, now: number, effects: Effect<typeof RULE>[]): void {
  effects.push({
    type: 'resolve',
    key: prev.period!.key,
    at: now,
    message: 'The site is no longer active: no routine inspection is due.',
    evidence: { inactive: true },
  });
}

/** "7th", "1st", "22nd": a day's place in words. */
export function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/**
 * The first tick after an upgrade from version 1: the open period is opened again under its key with its
 * due time counted as the law counts days (the engine updates its due time).
 */
function recount(prev: RoutineState, ctx: RuleContext<Params>) {
  const { recount: _, ...state } = structuredClone(prev);
  const effects: Effect<typeof RULE>[] = [];
  const p = state.period;
  if (p?.open && ctx.site.active)
    openPeriod(state, p.start, ctx, effects, 'the due time counted again: the last day is whole');
  return { state, effects };
}

/** A stored state of version 1 (periods of 7 x 24 h): taken as it is, its open period counted again. */
export function upgradeRoutineState(stored: unknown, from: number): RoutineState {
  if (from !== 1) throw new Error(`no upgrade of a routine-inspection state from version ${from}`);
  return { ...(stored as Omit<RoutineState, 'v'>), v: ROUTINE_STATE_VERSION, recount: true };
}
