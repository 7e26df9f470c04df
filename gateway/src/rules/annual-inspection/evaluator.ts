/**
 * `annual-inspection`: each alternative system needs an annual inspection by a licensed professional
 * engineer, due "within 60 days or prior to September 1st" of the town's June letter (law 000, 5.030 B 1 d).
 * One evaluator per alternative-system site, driven by ticks; dates are local calendar dates at midnight.
 * The schedule, its alerts and edge cases: README.md in this folder.
 */
import { priorTo, withinDays } from '../../../../shared/src/days.ts';
import { alertKey, openAlert } from '../effects.ts';
import type { SiteStateHead } from '../state.ts';
import type { Effect, Evaluator, RuleContext, RuleInput } from '../types.ts';
import {
  dueBefore,
  formatLocal,
  iso,
  localParts,
  measuredAt,
  ON_RECORD,
  onRecord,
  recordId,
  zonedMidnight,
} from '../util.ts';
import type { Params } from './params.ts';
import { deadlineReading } from './reading.ts';

export const RULE = 'annual-inspection' as const;

/** The inspection kinds that are the engineer's annual inspection. */
export const ANNUAL_INSPECTIONS: readonly string[] = ['annual'];

/** The engineer's report is "submitted to the Town": the submittal meets the deadline, the work date beside it. */
export const MEASURE = 'submittal' as const;

/**
 * The state's version: 2 counts the deadline as the law counts days (the 60th day whole, "prior to
 * September 1st" the end of August 31) and keeps an inspection's submittal time; version 1 had the due time
 * at the 60th day's start. `upgrade` takes a version 1 state as it is: an open year's alert follows its
 * schedule at the next tick, which moves its due time.
 */
export const ANNUAL_STATE_VERSION = 2;

export function isAnnualInspection(kind: string): boolean {
  return ANNUAL_INSPECTIONS.includes(kind);
}

export interface AnnualSchedule {
  year: number;
  letterAt: number;
  /** The end of the `withinDays`th day after the letter's day (the first late instant). */
  withinAt: number;
  /** "Prior to" the fixed date: its local midnight (the day before is the last whole day). */
  notAfterAt: number;
  /** The last instant on time (the deadline the reading gives, less 1 ms: 23:59 of its last day). */
  dueAt: number;
  /** The letter is the one on record in the site's history. */
  onRecord?: true;
}

/**
 * The town's letter of a year on record in the site's history (`history.annualLetter`), when it went out
 * that year (local calendar): the year's schedule runs from it instead of the configured letter day.
 */
export function letterOnRecord(
  ctx: RuleContext<Params>,
): { year: number; month: number; day: number } | undefined {
  const at = onRecord(ctx.site, 'annualLetter');
  if (at === undefined) return undefined;
  const p = localParts(at, ctx.timezone);
  return { year: p.year, month: p.month, day: p.day };
}

/**
 * A year's schedule: "within 60 days" of the letter ends at the end of the 60th local day after the
 * letter's day, "prior to September 1st" at the end of August 31 (`shared/src/days.ts`); the town's
 * reading (`rule`) takes the earlier or the later. The fixed date counts only when it falls after the
 * letter: a letter sent after it gives its days.
 */
export function annualSchedule(year: number, ctx: RuleContext<Params>): AnnualSchedule {
  const a = ctx.site.annualInspection;
  const tz = ctx.timezone;
  const rec = letterOnRecord(ctx);
  const letter = rec?.year === year ? rec : { month: a.letterMonth, day: a.letterDay };
  const letterAt = zonedMidnight(year, letter.month, letter.day, tz);
  const withinAt = withinDays(letterAt, a.withinDays, tz);
  const notAfterAt = priorTo(year, a.notAfter, tz);
  const deadline =
    notAfterAt <= letterAt
      ? withinAt
      : a.rule === 'later'
        ? Math.max(withinAt, notAfterAt)
        : Math.min(withinAt, notAfterAt);
  return {
    year,
    letterAt,
    withinAt,
    notAfterAt,
    dueAt: dueBefore(deadline),
    ...(rec?.year === year ? { onRecord: true } : {}),
  };
}

interface YearRecord {
  key: string;
  letterAt: number;
  dueAt: number;
  status: 'open' | 'resolved' | 'closed';
}

/**
 * An annual inspection: logged (its id), or the site's history (`history:…` id). `at` is the work's date,
 * `receivedAt` its submittal to the town (the gateway's receipt; a record of the history has none).
 */
interface Inspection {
  at: number;
  receivedAt?: number;
  id: string;
  inspector: string;
}

export interface AnnualState extends Omit<SiteStateHead, 'v'> {
  v: typeof ANNUAL_STATE_VERSION;
  years: Record<string, YearRecord>;
  /** Annual inspections not yet matched to a year's alert. */
  unused: Inspection[];
  seen: string[];
}

/** The last annual inspection of the site's history, as an inspection (none, or not yet at `now`). */
export function annualOnRecord(ctx: RuleContext<Params>, now: number): Inspection | undefined {
  const at = onRecord(ctx.site, 'lastAnnualInspection');
  if (at === undefined || at > now) return undefined;
  return { at, id: recordId('lastAnnualInspection', at), inspector: ON_RECORD };
}

const fromHistory = (i: Inspection) => i.id.startsWith('history:');

function resolveYear(
  state: AnnualState,
  year: string,
  insp: Inspection,
  ctx: RuleContext<Params>,
  effects: Effect<typeof RULE>[],
) {
  const y = state.years[year]!;
  const tz = ctx.timezone;
  const submitted = measuredAt(insp, MEASURE);
  const done = formatLocal(insp.at, tz);
  effects.push({
    type: 'resolve',
    key: y.key,
    at: submitted,
    message: fromHistory(insp)
      ? `Annual engineer's inspection for ${year} of ${done}, in ${ON_RECORD}.`
      : `Annual engineer's inspection for ${year} submitted to the town ${formatLocal(submitted, tz)} ` +
        `by ${insp.inspector} (inspection made ${done}).`,
    evidence: {
      year: Number(year),
      inspectionId: insp.id,
      inspector: insp.inspector,
      inspectedAt: iso(insp.at),
      submittedAt: iso(submitted),
      dueAt: iso(y.dueAt),
      onTime: submitted <= y.dueAt,
      timezone: tz,
      ...(fromHistory(insp) ? { onRecord: true } : {}),
    },
  });
  y.status = 'resolved';
}

/**
 * An annual inspection (the state is the caller's copy): it meets the latest open year it falls in or
 * after, or waits for its year's alert.
 */
function takeInspection(
  state: AnnualState,
  insp: Inspection,
  ctx: RuleContext<Params>,
  effects: Effect<typeof RULE>[],
): void {
  state.seen.push(insp.id);
  if (state.seen.length > 50) state.seen.splice(0, state.seen.length - 50);
  const open = Object.keys(state.years)
    .filter(
      (y) => state.years[y]!.status === 'open' && insp.at >= zonedMidnight(Number(y), 1, 1, ctx.timezone),
    )
    .sort();
  const target = open[open.length - 1];
  if (target !== undefined) resolveYear(state, target, insp, ctx, effects);
  else {
    state.unused.push(insp);
    state.unused.sort((a, b) => a.at - b.at);
    if (state.unused.length > 10) state.unused.splice(0, state.unused.length - 10);
  }
}

/** A year's alert: its key, its times as scheduled, and its message and evidence. */
function yearAlert(state: AnnualState, sch: AnnualSchedule, ctx: RuleContext<Params>) {
  const tz = ctx.timezone;
  const a = ctx.site.annualInspection;
  const reading = deadlineReading(a, sch.notAfterAt > sch.letterAt);
  return openAlert(RULE, state, {
    key: alertKey(RULE, state, sch.year),
    at: sch.letterAt,
    dueAt: sch.dueAt,
    message:
      `Annual inspection ${sch.year} by a licensed professional engineer: the town's letter ` +
      `${sch.onRecord ? 'went out' : 'goes out'} ${formatLocal(sch.letterAt, tz)}` +
      `${sch.onRecord ? ` (${ON_RECORD})` : ''}; submit the inspection form to the town by ${formatLocal(sch.dueAt, tz)} ` +
      `(${reading}; law 000, 5.030 B 1 d).`,
    evidence: {
      year: sch.year,
      letterAt: iso(sch.letterAt),
      withinAt: iso(sch.withinAt),
      notAfterAt: iso(sch.notAfterAt),
      dueAt: iso(sch.dueAt),
      rule: a.rule,
      timezone: tz,
      ...(sch.onRecord ? { letterOnRecord: true } : {}),
    },
  });
}

/**
 * A year's duty at a tick (the state is the caller's copy, made on the first change): opened on the first
 * tick at or after its letter, met at once by an inspection of the year already logged; an open one
 * follows its schedule when that moved (a letter on record, a changed letter day).
 */
function yearAt(
  year: number,
  now: number,
  state: () => AnnualState,
  ctx: RuleContext<Params>,
  effects: Effect<typeof RULE>[],
): void {
  const sch = annualSchedule(year, ctx);
  const cur = state().years[year];
  if (cur !== undefined) {
    if (cur.status !== 'open' || (cur.letterAt === sch.letterAt && cur.dueAt === sch.dueAt)) return;
    const s = state();
    s.years[year] = { ...cur, letterAt: sch.letterAt, dueAt: sch.dueAt };
    effects.push(yearAlert(s, sch, ctx));
    return;
  }
  if (now < sch.letterAt) return;
  const s = state();
  const alert = yearAlert(s, sch, ctx);
  s.years[year] = { key: alertKey(RULE, s, year), letterAt: sch.letterAt, dueAt: sch.dueAt, status: 'open' };
  effects.push(alert);
  const startOfYear = zonedMidnight(year, 1, 1, ctx.timezone);
  const idx = s.unused.findIndex((i) => i.at >= startOfYear);
  if (idx >= 0) {
    const [insp] = s.unused.splice(idx, 1);
    resolveYear(s, String(year), insp!, ctx, effects);
  }
}

export const annualEvaluator: Evaluator<AnnualState, typeof RULE, Params> = {
  rule: RULE,
  init(ctx: RuleContext<Params>): AnnualState {
    return { v: ANNUAL_STATE_VERSION, siteId: ctx.site.id, years: {}, unused: [], seen: [] };
  },
  evaluate(prev: AnnualState, input: RuleInput, ctx: RuleContext<Params>) {
    const effects: Effect<typeof RULE>[] = [];
    const tz = ctx.timezone;
    if (input.type === 'tick') {
      let copy: AnnualState | undefined;
      const state = () => (copy ??= structuredClone(prev));
      // The site's history: its last annual inspection is taken once, as a logged one would be.
      const rec = annualOnRecord(ctx, input.now);
      if (rec && !prev.seen.includes(rec.id)) takeInspection(state(), rec, ctx, effects);
      // This year's duty; and last year's, when its letter is on record (it went out late in the year).
      const year = localParts(input.now, tz).year;
      const letter = letterOnRecord(ctx);
      if (letter?.year === year - 1) yearAt(letter.year, input.now, state, ctx, effects);
      yearAt(year, input.now, state, ctx, effects);
      if (!copy) return { state: prev, effects };
      const years = Object.keys(copy.years).sort();
      for (const y of years.slice(0, Math.max(0, years.length - 10))) delete copy.years[y];
      return { state: copy, effects };
    }
    if (input.type === 'inspection') {
      if (input.siteId !== prev.siteId || !isAnnualInspection(input.kind) || prev.seen.includes(input.id))
        return { state: prev, effects };
      const state = structuredClone(prev);
      const insp: Inspection = { at: input.at, id: input.id, inspector: input.inspector };
      if (input.receivedAt !== undefined) insp.receivedAt = input.receivedAt;
      takeInspection(state, insp, ctx, effects);
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

/**
 * A stored state of an older version: version 1 is taken as it is (an open year's due time follows its
 * schedule at the next tick, as after a change of the letter day).
 */
export function upgradeAnnualState(stored: unknown, from: number): AnnualState {
  if (from !== 1) throw new Error(`no upgrade of an annual-inspection state from version ${from}`);
  return { ...(stored as Omit<AnnualState, 'v'>), v: ANNUAL_STATE_VERSION };
}
