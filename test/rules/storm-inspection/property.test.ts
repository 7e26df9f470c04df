/**
 * The storm evaluator against the reference derivation (`reference.ts`, the rule as release 0.1.0 derived
 * it from the whole window on every input): random gauge histories, delivered in order, shuffled, as
 * late backlogs, newest first, in locally shuffled blocks and reversed, with duplicates, ticks and
 * inspections among them, must give exactly the same effects, input by input, and the same storms.
 */
import { describe, expect, it } from 'vitest';
import {
  type StormState,
  stormEvaluator,
  stormEventsOf,
} from '../../../gateway/src/rules/storm-inspection/evaluator.ts';
import type { Effect, RuleInput } from '../../../gateway/src/rules/types.ts';
import { ctxOf, DAY, rng, type SiteContext, T0 } from '../helpers.ts';
import { DELIVERIES, deliveryInputs, denseCounterHistory, gaugeHistory } from './randomInputs.ts';
import * as ref from './reference.ts';

/** A gauge's site; alerts are raised at once (`settleMinutes: 0`), as the reference raises them. */
function gaugeCtx(inchesPerTip: number, site: Record<string, unknown> = {}): SiteContext {
  const storm = (site.storm ?? {}) as Record<string, unknown>;
  return ctxOf({
    kind: 'construction',
    ...site,
    storm: { settleMinutes: 0, ...storm },
    devices: [{ id: 'rg', kind: 'rain-gauge', inchesPerTip }],
  });
}

/** What the comparisons went through, so the test shows it covered late data's every consequence. */
const seen = new Map<string, number>();
function tally(effects: readonly Effect[], state: StormState): void {
  const count = (k: string) => seen.set(k, (seen.get(k) ?? 0) + 1);
  for (const e of effects) {
    count(e.type);
    if (e.type === 'resolve')
      for (const k of ['superseded', 'withdrawn', 'inheritedFrom', 'inspectionId'])
        if (e.evidence[k] !== undefined) count(k);
    if (e.type === 'open' && e.key.includes(':again:')) count('reopened');
    if (e.type === 'open' && e.evidence.timingUncertain) count('timingUncertain');
  }
  if (state.events.some((e) => e.frozen)) count('frozen');
  if (state.carry) count('carry');
  if (state.late.dropped > 0) count('dropped');
}

/**
 * Feeds the inputs to both evaluators and compares every input's effects. `json`: the new evaluator's
 * state goes through JSON between inputs (the engine stores it so). `ctxAt`: the context of input i.
 */
function compare(given: RuleInput[], ctxAt: (i: number) => SiteContext, json: boolean, label: string) {
  let a: ref.StormState = ref.referenceStormEvaluator.init(ctxAt(0), 'rg');
  let b: StormState = stormEvaluator.init(ctxAt(0), 'rg');
  const all: Effect[] = [];
  const inputs = [...given];
  const r = rng(given.length);
  for (let i = 0; i < inputs.length; i++) {
    const ctx = ctxAt(Math.min(i, given.length - 1));
    const ra = ref.referenceStormEvaluator.evaluate(a, inputs[i]!, ctx);
    const rb = stormEvaluator.evaluate(b, inputs[i]!, ctx);
    if (JSON.stringify(rb.effects) !== JSON.stringify(ra.effects))
      expect(rb.effects, `${label}: effects of input ${i} (${JSON.stringify(inputs[i])})`).toEqual(
        ra.effects,
      );
    a = ra.state;
    b = json ? (JSON.parse(JSON.stringify(rb.state)) as StormState) : rb.state;
    all.push(...rb.effects);
    tally(rb.effects, rb.state);
    // Now and then a person closes an alert just opened (the engine tells the evaluator).
    for (const e of ra.effects)
      if (e.type === 'open' && r() < 0.15)
        inputs.splice(i + 2, 0, { type: 'alert-closed', key: e.key, at: e.at, how: 'manual' });
  }
  const ctx = ctxAt(given.length - 1);
  expect(stormEventsOf(b, ctx), `${label}: storms`).toEqual(ref.stormEventsOf(a, ctx));
  expect(b.late, `${label}: late readings`).toEqual(a.late);
  return all;
}

describe('storm-inspection: the incremental evaluator gives the reference derivation, effect for effect', () => {
  for (let seed = 1; seed <= Number(process.env.SEEDS ?? 24); seed++) {
    it(`random gauge history ${seed}, every delivery`, () => {
      const h = gaugeHistory(seed, 150 + (seed % 5) * 80);
      const ctx = gaugeCtx(h.inchesPerTip);
      let opened = 0;
      for (const how of DELIVERIES) {
        const inputs = deliveryInputs(h, seed, how);
        const effects = compare(inputs, () => ctx, seed % 3 === 0, `seed ${seed} ${h.kind} ${how}`);
        opened += effects.filter((e) => e.type === 'open').length;
      }
      if (seed === 1) expect(opened).toBeGreaterThan(0);
    });
  }

  it('alerts enabled part way, and thresholds changed part way, re-derive as the reference does', () => {
    for (const seed of [101, 102, 103]) {
      const h = gaugeHistory(seed, 300);
      const inactive = gaugeCtx(h.inchesPerTip, { active: false });
      const active = gaugeCtx(h.inchesPerTip);
      const lower = gaugeCtx(h.inchesPerTip, { storm: { thresholdIn: 0.3, interEventHours: 4 } });
      const inputs = deliveryInputs(h, seed, 'blocks');
      const third = Math.floor(inputs.length / 3);
      compare(inputs, (i) => (i < third ? inactive : i < 2 * third ? active : lower), true, `seed ${seed}`);
    }
  });

  it('long histories: more than 14 days and more than 5000 readings (the window is pruned)', () => {
    const long = gaugeHistory(201, 1200, 40);
    for (const how of ['in-order', 'late-backlog', 'blocks'] as const)
      compare(deliveryInputs(long, 201, how), () => gaugeCtx(long.inchesPerTip), false, `long ${how}`);
    expect(
      new Set(long.readings.map((x) => Math.floor((x.ts - long.readings[0]!.ts) / DAY))).size,
    ).toBeGreaterThan(14);
    // A counter every 30 s for two days: the window's 5000-reading cap prunes it.
    const dense = denseCounterHistory(202, T0);
    for (const how of ['in-order', 'blocks'] as const)
      compare(deliveryInputs(dense, 202, how), () => gaugeCtx(0.01), false, `dense ${how}`);
  }, 120_000);

  it('went through every consequence of late data', () => {
    for (const k of [
      'superseded',
      'withdrawn',
      'inheritedFrom',
      'inspectionId',
      'reopened',
      'timingUncertain',
      'frozen',
      'carry',
      'dropped',
    ])
      expect(seen.get(k) ?? 0, k).toBeGreaterThan(0);
  });
});
