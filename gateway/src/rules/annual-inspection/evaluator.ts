/**
 * `annual-inspection`: each alternative system needs an annual inspection by a licensed professional
 * engineer, due "within 60 days or prior to September 1st" of the town's June letter (law 000, 5.030 B 1 d).
 * One evaluator per alternative-system site, driven by ticks; dates are local calendar dates at midnight.
 * The schedule, its alerts and edge cases: README.md in this folder.
 */
import { alertKey, openAlert } from '../effects.ts';
import { type SiteStateHead, siteState } from '../state.ts';
import type { Effect, Evaluator, RuleContext, RuleInput } from '../types.ts';
import { addDays, DAY, formatLocal, iso, localParts, zonedMidnight } from '../util.ts';
import type { Params } from './params.ts';

export const RULE = 'annual-inspection' as const;

/** An inspection of this kind is the engineer's annual report. */
/** The inspection kinds that are the engineer's annual inspection. */
export const ANNUAL_INSPECTIONS: readonly string[] = ['annual'];

export function isAnnualInspection(kind: string): boolean {
  return ANNUAL_INSPECTIONS.includes(kind);
}

export interface AnnualSchedule {
  year: number;
  letterAt: number;
  withinAt: number;
  notAfterAt: number;
  dueAt: number;
}

export function annualSchedule(year: number, ctx: RuleContext<Params>): AnnualSchedule {
  const a = ctx.site.annualInspection;
  const tz = ctx.timezone;
  const letterAt = zonedMidnight(year, a.letterMonth, a.letterDay, tz);
  const whole = Math.floor(a.withinDays);
  const d = addDays(year, a.letterMonth, a.letterDay, whole);
  const withinAt = zonedMidnight(d.year, d.month, d.day, tz) + (a.withinDays - whole) * DAY;
  const [mm, dd] = a.notAfter.split('-').map(Number) as [number, number];
  const notAfterAt = zonedMidnight(year, mm, dd, tz);
  const dueAt = a.rule === 'later' ? Math.max(withinAt, notAfterAt) : Math.min(withinAt, notAfterAt);
  return { year, letterAt, withinAt, notAfterAt, dueAt };
}

interface YearRecord {
  key: string;
  letterAt: number;
  dueAt: number;
  status: 'open' | 'resolved' | 'closed';
}

export interface AnnualState extends SiteStateHead {
  years: Record<string, YearRecord>;
  /** Annual inspections not yet matched to a year's alert. */
  unused: Array<{ at: number; id: string; inspector: string }>;
  seen: string[];
}

function resolveYear(
  state: AnnualState,
  year: string,
  insp: { at: number; id: string; inspector: string },
  ctx: RuleContext<Params>,
  effects: Effect<typeof RULE>[],
) {
  const y = state.years[year]!;
  effects.push({
    type: 'resolve',
    key: y.key,
    at: insp.at,
    message: `Annual engineer's inspection for ${year} submitted ${formatLocal(insp.at, ctx.timezone)} by ${insp.inspector}.`,
    evidence: {
      year: Number(year),
      inspectionId: insp.id,
      inspector: insp.inspector,
      inspectedAt: iso(insp.at),
      dueAt: iso(y.dueAt),
      onTime: insp.at <= y.dueAt,
    },
  });
  y.status = 'resolved';
}

export const annualEvaluator: Evaluator<AnnualState, typeof RULE, Params> = {
  rule: RULE,
  init(ctx: RuleContext<Params>): AnnualState {
    return siteState(ctx, { years: {}, unused: [], seen: [] });
  },
  evaluate(prev: AnnualState, input: RuleInput, ctx: RuleContext<Params>) {
    const effects: Effect<typeof RULE>[] = [];
    const tz = ctx.timezone;
    if (input.type === 'tick') {
      const year = localParts(input.now, tz).year;
      if (prev.years[year] !== undefined) return { state: prev, effects };
      const sch = annualSchedule(year, ctx);
      if (input.now < sch.letterAt) return { state: prev, effects };
      const state = structuredClone(prev);
      const key = alertKey(RULE, state, year);
      state.years[year] = { key, letterAt: sch.letterAt, dueAt: sch.dueAt, status: 'open' };
      const a = ctx.site.annualInspection;
      effects.push(
        openAlert(RULE, state, {
          key,
          at: sch.letterAt,
          dueAt: sch.dueAt,
          message:
            `Annual inspection ${year} by a licensed professional engineer: the town's letter goes out ` +
            `${formatLocal(sch.letterAt, tz)}; submit the inspection form by ${formatLocal(sch.dueAt, tz)} ` +
            `(within ${a.withinDays} days of the letter or before ${a.notAfter}, the ${a.rule}; law 000, 5.030 B 1 d).`,
          evidence: {
            year,
            letterAt: iso(sch.letterAt),
            withinAt: iso(sch.withinAt),
            notAfterAt: iso(sch.notAfterAt),
            dueAt: iso(sch.dueAt),
            rule: a.rule,
            timezone: tz,
          },
        }),
      );
      const startOfYear = zonedMidnight(year, 1, 1, tz);
      const idx = state.unused.findIndex((i) => i.at >= startOfYear);
      if (idx >= 0) {
        const [insp] = state.unused.splice(idx, 1);
        resolveYear(state, String(year), insp!, ctx, effects);
      }
      const years = Object.keys(state.years).sort();
      for (const y of years.slice(0, Math.max(0, years.length - 10))) delete state.years[y];
      return { state, effects };
    }
    if (input.type === 'inspection') {
      if (input.siteId !== prev.siteId || !isAnnualInspection(input.kind) || prev.seen.includes(input.id))
        return { state: prev, effects };
      const state = structuredClone(prev);
      state.seen.push(input.id);
      if (state.seen.length > 50) state.seen.splice(0, state.seen.length - 50);
      const insp = { at: input.at, id: input.id, inspector: input.inspector };
      const open = Object.keys(state.years)
        .filter((y) => state.years[y]!.status === 'open' && input.at >= zonedMidnight(Number(y), 1, 1, tz))
        .sort();
      const target = open[open.length - 1];
      if (target !== undefined) resolveYear(state, target, insp, ctx, effects);
      else {
        state.unused.push(insp);
        state.unused.sort((a, b) => a.at - b.at);
        if (state.unused.length > 10) state.unused.splice(0, state.unused.length - 10);
      }
      return { state, effects };
    }
    if (input.type === 'alert-closed') {
      const y = Object.keys(prev.years).find((k) => prev.years[k]!.key === input.key);
      if (y === undefined || prev.years[y]!.status !== 'open') return { state: prev, effects };
      const state = structuredClone(prev);
      state.years[y]!.status = 'closed';
      return { state, effects };
    }
    return { state: prev, effects };
  },
};
