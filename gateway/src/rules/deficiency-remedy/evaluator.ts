/**
 * `equipment-deficiency` and `field-deficiency`: what the engineer's annual inspection of an advanced
 * system finds to remedy must be remedied "within 5 days if related to equipment or 30 days if related to
 * absorption field" (law 000, 5.030 B 1 d), counted as the law counts days (`shared/src/days.ts`) from the
 * inspection's submittal to the town. One evaluator per site (alternative systems and holding tanks). Its
 * alerts and edge cases: README.md in this folder.
 */

import { type DeficiencyKind, deficiencyId } from '../../../../shared/src/api/findings.ts';
import { endOfDayInWords, withinDays } from '../../../../shared/src/days.ts';
import { alertKey, openAlert, resolveAlert } from '../effects.ts';
import { type SiteStateHead, siteState } from '../state.ts';
import type { Effect, Evaluator, RuleContext, RuleInput } from '../types.ts';
import { dueBefore, formatLocal, iso } from '../util.ts';
import type { Params } from './params.ts';

/** The two rules: a deficiency of the equipment (5 days) and one of the absorption field (30 days). */
export const RULES = ['equipment-deficiency', 'field-deficiency'] as const;
export type DeficiencyRule = (typeof RULES)[number];

export const RULE_OF: Record<DeficiencyKind, DeficiencyRule> = {
  equipment: RULES[0],
  field: RULES[1],
};
const KIND_WORDS: Record<DeficiencyKind, string> = { equipment: 'equipment', field: 'absorption field' };

/** An open deficiency: its id (`insp-…/n`), its alert's key, and its remedy's clock. */
interface OpenDeficiency {
  id: string;
  key: string;
  kind: DeficiencyKind;
  received: number;
  dueAt: number;
}

export interface DeficiencyState extends SiteStateHead {
  open: OpenDeficiency[];
}

/** The days the law gives a kind (whole days: a fraction counts as the next whole day). */
function daysFor(kind: DeficiencyKind, ctx: RuleContext<Params>): number {
  return Math.ceil(kind === 'field' ? ctx.site.fieldRemedyDays : ctx.site.equipmentRemedyDays);
}

type InspectionInput = Extract<RuleInput, { type: 'inspection' }>;

/** The deficiencies an inspection found: each opens its remedy duty from the submittal. */
function found(
  state: DeficiencyState,
  input: InspectionInput,
  ctx: RuleContext<Params>,
): Effect<DeficiencyRule>[] {
  const effects: Effect<DeficiencyRule>[] = [];
  const received = input.receivedAt ?? input.at;
  const tz = ctx.timezone;
  (input.details?.deficiencies ?? []).forEach((d, n) => {
    const id = deficiencyId(input.id, n);
    if (state.open.some((o) => o.id === id)) return;
    const rule = RULE_OF[d.kind];
    const days = daysFor(d.kind, ctx);
    // The last instant on time, as every rule's due time (`dueBefore`).
    const dueAt = dueBefore(withinDays(received, days, tz));
    const key = alertKey(rule, state, id);
    state.open.push({ id, key, kind: d.kind, received, dueAt });
    effects.push(
      openAlert(rule, state, {
        key,
        at: received,
        dueAt,
        message:
          `The annual inspection by ${input.inspector} found a deficiency of the ${KIND_WORDS[d.kind]}: ${d.note}. ` +
          `Remedy it within ${days} days of the inspection's submittal on ${formatLocal(received, tz)}, by ` +
          `${endOfDayInWords(dueAt, tz)} (law 000, 5.030 B 1 d; a licensed engineer's letter may extend this).`,
        evidence: {
          deficiency: id,
          kind: d.kind,
          note: d.note,
          inspectionId: input.id,
          inspectedAt: iso(input.at),
          receivedAt: iso(received),
          remedyDays: days,
          dueAt: iso(dueAt),
          timezone: tz,
        },
      }),
    );
  });
  return effects;
}

/** The deficiencies a later inspection found remedied: their duties are met at its time. */
function remedied(
  state: DeficiencyState,
  input: InspectionInput,
  ctx: RuleContext<Params>,
): Effect<DeficiencyRule>[] {
  const effects: Effect<DeficiencyRule>[] = [];
  const ids = new Set(input.details?.remedied ?? []);
  if (ids.size === 0) return effects;
  const keep: OpenDeficiency[] = [];
  for (const o of state.open) {
    if (!ids.has(o.id)) {
      keep.push(o);
      continue;
    }
    // Remedied before the submittal that reported it: met at the duty's own start.
    const at = Math.max(input.at, o.received);
    effects.push(
      resolveAlert(o.key, at, {
        message: `Deficiency ${o.id} found remedied by ${input.inspector} on ${formatLocal(input.at, ctx.timezone)}.`,
        evidence: { deficiency: o.id, remediedBy: input.id, remediedAt: iso(input.at), dueAt: iso(o.dueAt) },
      }),
    );
  }
  state.open = keep;
  return effects;
}

export const deficiencyEvaluator: Evaluator<DeficiencyState, DeficiencyRule, Params> = {
  rule: RULES,
  init(ctx: RuleContext<Params>): DeficiencyState {
    return siteState(ctx, { open: [] });
  },
  evaluate(prev: DeficiencyState, input: RuleInput, ctx: RuleContext<Params>) {
    if (input.type === 'inspection') {
      if (input.siteId !== prev.siteId || !input.details) return { state: prev, effects: [] };
      const state: DeficiencyState = { ...prev, open: prev.open.map((o) => ({ ...o })) };
      // Remedied first: an inspection that finds a deficiency names only earlier ones remedied.
      const effects = [...remedied(state, input, ctx), ...found(state, input, ctx)];
      return effects.length ? { state, effects } : { state: prev, effects };
    }
    if (input.type === 'alert-closed') {
      if (!prev.open.some((o) => o.key === input.key)) return { state: prev, effects: [] };
      return { state: { ...prev, open: prev.open.filter((o) => o.key !== input.key) }, effects: [] };
    }
    return { state: prev, effects: [] };
  },
};
