/**
 * `violation-remedy`: a notice of violation (town law 001, Enforcement, A(4)) sets "the required remedial
 * measures and the time schedule for their completion"; an order of the Enforcement Officer (town law
 * 000, Section 5.100 B) orders the defects corrected "within a reasonable time" he fixes. The officer's
 * notice is the duty's start: the evaluator opens one alert per notice, due at the notice's `remedyDueAt`,
 * and resolves it when the officer approves the correction (or the notice is reversed on appeal), at that
 * step's time (on time when at or before the due time; the
 * engine gives the outcome). Reminders and overdue are the engine's, as for every duty. Its inputs are
 * the `violation` steps the record feeds (`enforcement/violations.ts`); readings and ticks change nothing.
 */
import { alertKey, openAlert, resolveAlert } from '../effects.ts';
import { type SiteStateHead, siteState } from '../state.ts';
import type { Effect, Evaluator, RuleContext, RuleInput } from '../types.ts';
import { formatLocal, iso } from '../util.ts';
import type { Params } from './params.ts';

export const RULE = 'violation-remedy';

/** Notices at most this many stay open on one site (far beyond any real count; bounds the state). */
const MAX_OPEN = 500;

export interface ViolationRemedyState extends SiteStateHead {
  /** The notices whose remedy duty is open: each notice's id and its alert's key. */
  open: Array<{ id: string; key: string }>;
}

type Input = Extract<RuleInput, { type: 'violation' }>;

function issued(prev: ViolationRemedyState, input: Input, ctx: RuleContext<Params>) {
  const key = alertKey(RULE, prev, input.id);
  if (prev.open.some((o) => o.key === key)) return { state: prev, effects: [] };
  const tz = ctx.timezone;
  const effects: Effect<typeof RULE>[] = [
    openAlert(RULE, prev, {
      key,
      at: input.at,
      dueAt: input.remedyDueAt,
      message:
        `Notice of violation at ${ctx.site.name}, issued ${formatLocal(input.at, tz)} by ${input.by}: ` +
        `the remedial measures are due by ${formatLocal(input.remedyDueAt, tz)} (${input.cite ?? 'law 001, Enforcement'}).`,
      evidence: {
        violationId: input.id,
        nature: input.nature,
        issuedAt: iso(input.at),
        issuedBy: input.by,
        dueAt: iso(input.remedyDueAt),
      },
    }),
  ];
  const open = [...prev.open, { id: input.id, key }].slice(-MAX_OPEN);
  return { state: { ...prev, open }, effects };
}

function approved(prev: ViolationRemedyState, input: Input, ctx: RuleContext<Params>) {
  const found = prev.open.find((o) => o.id === input.id);
  if (!found) return { state: prev, effects: [] };
  const within = input.at <= input.remedyDueAt;
  if (input.step === 'reversed') {
    const reversed: Effect<typeof RULE>[] = [
      resolveAlert(found.key, input.at, {
        message: `The notice was reversed on appeal (recorded by ${input.by} on ${formatLocal(input.at, ctx.timezone)}): its remedial measures are no longer required.`,
        evidence: { violationId: input.id, reversedAt: iso(input.at), reversedBy: input.by },
      }),
    ];
    return { state: { ...prev, open: prev.open.filter((o) => o !== found) }, effects: reversed };
  }
  const effects: Effect<typeof RULE>[] = [
    resolveAlert(found.key, input.at, {
      message:
        `The officer (${input.by}) approved the correction on ${formatLocal(input.at, ctx.timezone)}: ` +
        `${within ? 'within' : 'NOT within'} the notice's schedule.`,
      evidence: {
        violationId: input.id,
        approvedAt: iso(input.at),
        approvedBy: input.by,
        dueAt: iso(input.remedyDueAt),
        withinDeadline: within,
      },
    }),
  ];
  return { state: { ...prev, open: prev.open.filter((o) => o !== found) }, effects };
}

export const violationRemedyEvaluator: Evaluator<ViolationRemedyState, typeof RULE, Params> = {
  rule: RULE,
  init: (ctx) => siteState(ctx, { open: [] }),
  evaluate(prev, input, ctx) {
    if (input.type === 'violation') {
      if (input.siteId !== prev.siteId) return { state: prev, effects: [] };
      return input.step === 'issued' ? issued(prev, input, ctx) : approved(prev, input, ctx);
    }
    if (input.type === 'alert-closed') {
      // Closed by a person: the notice no longer holds an open duty here.
      if (!prev.open.some((o) => o.key === input.key)) return { state: prev, effects: [] };
      return { state: { ...prev, open: prev.open.filter((o) => o.key !== input.key) }, effects: [] };
    }
    return { state: prev, effects: [] };
  },
};
