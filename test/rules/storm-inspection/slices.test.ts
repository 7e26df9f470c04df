/**
 * A slice of readings given at once (`evaluateReadings`, one copy of the state for the slice) gives the
 * effects, in the same order, and the state that the same readings give one by one: random gauge
 * histories in every delivery (in order, shuffled, late backlogs, newest first, blocks, reversed), with
 * ticks and inspections between the slices, cut into slices of random lengths.
 */
import { describe, expect, it } from 'vitest';
import { evaluateSlice, oneByOne } from '../../../gateway/src/rules/slice.ts';
import { type StormState, stormEvaluator } from '../../../gateway/src/rules/storm-inspection/evaluator.ts';
import type { Effect, RuleInput } from '../../../gateway/src/rules/types.ts';
import type { Reading } from '../../../shared/src/telemetry.ts';
import { ctxOf, rng } from '../helpers.ts';
import { DELIVERIES, deliveryInputs, gaugeHistory } from './randomInputs.ts';

const ctxFor = (inchesPerTip: number) =>
  ctxOf({
    kind: 'construction',
    storm: { settleMinutes: 5 },
    devices: [{ id: 'rg', kind: 'rain-gauge', inchesPerTip }],
  });

/** The inputs one by one, and in slices: each run of readings cut at random lengths (1 to 60). */
function both(inputs: readonly RuleInput[], seed: number, ctx: ReturnType<typeof ctxFor>) {
  let a: StormState = stormEvaluator.init(ctx, 'rg');
  let b: StormState = stormEvaluator.init(ctx, 'rg');
  const ea: Effect[] = [];
  const eb: Effect[] = [];
  let wakeA = Number.POSITIVE_INFINITY;
  let wakeB = Number.POSITIVE_INFINITY;
  const r = rng(seed);
  let slices = 0;
  for (let i = 0; i < inputs.length; ) {
    const input = inputs[i]!;
    if (input.type !== 'reading') {
      const oa = stormEvaluator.evaluate(a, input, ctx);
      const ob = stormEvaluator.evaluate(b, input, ctx);
      a = oa.state;
      b = ob.state;
      ea.push(...oa.effects);
      eb.push(...ob.effects);
      i++;
      continue;
    }
    const slice: Reading[] = [];
    const n = 1 + Math.floor(r() * 60);
    while (i < inputs.length && slice.length < n && inputs[i]!.type === 'reading')
      slice.push((inputs[i++] as Extract<RuleInput, { type: 'reading' }>).reading);
    const oa = oneByOne(stormEvaluator, a, slice, ctx);
    const ob = evaluateSlice(stormEvaluator, b, slice, ctx);
    a = oa.state;
    b = ob.state;
    ea.push(...oa.effects);
    eb.push(...ob.effects);
    wakeA = Math.min(wakeA, oa.wakeAt ?? wakeA);
    wakeB = Math.min(wakeB, ob.wakeAt ?? wakeB);
    if (slice.length > 1) slices++;
  }
  return { a, b, ea, eb, wakeA, wakeB, slices };
}

describe('storm-inspection: a slice of readings at once is the readings one by one', () => {
  for (let seed = 1; seed <= 12; seed++)
    it(`random gauge history ${seed}, every delivery`, () => {
      const h = gaugeHistory(seed, 200 + (seed % 4) * 100);
      const ctx = ctxFor(h.inchesPerTip);
      let opened = 0;
      for (const how of DELIVERIES) {
        const { a, b, ea, eb, wakeA, wakeB, slices } = both(deliveryInputs(h, seed, how), seed * 31, ctx);
        expect(slices, `${how}: slices of more than one reading`).toBeGreaterThan(0);
        expect(eb, `${how}: effects`).toEqual(ea);
        expect(b, `${how}: state`).toEqual(a);
        // One by one, a reading may ask for a wake-up that a later one of its slice makes needless; the
        // slice asks for its final state's (the same state), never earlier than the readings one by one.
        if (Number.isFinite(wakeB)) expect(wakeB).toBeGreaterThanOrEqual(wakeA);
        opened += ea.filter((e) => e.type === 'open').length;
      }
      if (seed === 1) expect(opened).toBeGreaterThan(0);
    });

  it('leaves the state it was given as it was', () => {
    const h = gaugeHistory(5, 300);
    const ctx = ctxFor(h.inchesPerTip);
    const readings = deliveryInputs(h, 5, 'in-order')
      .filter((x): x is Extract<RuleInput, { type: 'reading' }> => x.type === 'reading')
      .map((x) => x.reading);
    const half = oneByOne(stormEvaluator, stormEvaluator.init(ctx, 'rg'), readings.slice(0, 150), ctx).state;
    const before = JSON.stringify(half);
    evaluateSlice(stormEvaluator, half, readings.slice(150), ctx);
    expect(JSON.stringify(half)).toBe(before);
  });
});
