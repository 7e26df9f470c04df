/**
 * A slice of readings given at once (`evaluateReadings`, one copy of the state for the slice) leaves the
 * state that the same readings give one by one, and its effects leave the alerts and storm records the
 * same (each slice's effects applied as the engine applies them): random gauge histories in every
 * delivery (in order, shuffled, late backlogs, newest first, blocks, reversed), with ticks and
 * inspections between the slices, cut into slices of random lengths. A slice reports a storm once, not
 * once per tip: in order, it gives fewer storm records and alert updates.
 */
import { describe, expect, it } from 'vitest';
import { evaluateSlice, oneByOne } from '../../../gateway/src/rules/slice.ts';
import { type StormState, stormEvaluator } from '../../../gateway/src/rules/storm-inspection/evaluator.ts';
import type { RuleInput } from '../../../gateway/src/rules/types.ts';
import type { Reading } from '../../../shared/src/telemetry.ts';
import { ctxOf, rng, Sink } from '../helpers.ts';
import { DELIVERIES, deliveryInputs, denseCounterHistory, gaugeHistory } from './randomInputs.ts';

const ctxFor = (inchesPerTip: number) =>
  ctxOf({
    kind: 'construction',
    storm: { settleMinutes: 5 },
    devices: [{ id: 'rg', kind: 'rain-gauge', inchesPerTip }],
  });

/** What a sink holds, the count of updates left out (a slice makes fewer). */
function held(sink: Sink) {
  return {
    alerts: [...sink.alerts.values()].map(({ updates: _, ...a }) => a),
    storms: [...sink.storms.values()],
  };
}

/** The inputs one by one, and in slices: each run of readings cut at random lengths (1 to 60). */
function both(inputs: readonly RuleInput[], seed: number, ctx: ReturnType<typeof ctxFor>) {
  let a: StormState = stormEvaluator.init(ctx, 'rg');
  let b: StormState = stormEvaluator.init(ctx, 'rg');
  const sa = new Sink();
  const sb = new Sink();
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
      sa.apply(oa.effects);
      sb.apply(ob.effects);
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
    sa.apply(oa.effects);
    sb.apply(ob.effects);
    expect(held(sb), `after slice ending at input ${i}`).toEqual(held(sa));
    wakeA = Math.min(wakeA, oa.wakeAt ?? wakeA);
    wakeB = Math.min(wakeB, ob.wakeAt ?? wakeB);
    if (slice.length > 1) slices++;
  }
  return { a, b, sa, sb, wakeA, wakeB, slices };
}

describe('storm-inspection: a slice of readings at once is the readings one by one', () => {
  for (let seed = 1; seed <= 12; seed++)
    it(`random gauge history ${seed}, every delivery`, () => {
      const h = gaugeHistory(seed, 200 + (seed % 4) * 100);
      const ctx = ctxFor(h.inchesPerTip);
      let opened = 0;
      for (const how of DELIVERIES) {
        const { a, b, sa, sb, wakeA, wakeB, slices } = both(deliveryInputs(h, seed, how), seed * 31, ctx);
        expect(slices, `${how}: slices of more than one reading`).toBeGreaterThan(0);
        expect(b, `${how}: state`).toEqual(a);
        expect(held(sb), `${how}: alerts and storms`).toEqual(held(sa));
        expect(sb.count('open'), `${how}: alerts opened`).toBe(sa.count('open'));
        expect(sb.count('resolve'), `${how}: alerts resolved`).toBe(sa.count('resolve'));
        if (how === 'in-order' && sa.count('storm') > 0) {
          expect(sb.count('storm'), 'in order: fewer storm records').toBeLessThan(sa.count('storm'));
          if (sa.count('update') > 0)
            expect(sb.count('update'), 'in order: fewer alert updates').toBeLessThan(sa.count('update'));
        }
        // One by one, a reading may ask for a wake-up that a later one of its slice makes needless; the
        // slice asks for its final state's (the same state), never earlier than the readings one by one.
        if (Number.isFinite(wakeB)) expect(wakeB).toBeGreaterThanOrEqual(wakeA);
        opened += sa.count('open');
      }
      if (seed === 1) expect(opened).toBeGreaterThan(0);
    });

  it('long histories: the window pruned by its 14 days and by its 5000 readings, in slices', () => {
    const long = gaugeHistory(201, 1200, 40);
    const dense = denseCounterHistory(202, long.readings[0]!.ts);
    for (const h of [long, dense])
      for (const how of ['in-order', 'late-backlog', 'blocks'] as const) {
        const ctx = ctxFor(h.inchesPerTip);
        const { a, b, sa, sb } = both(deliveryInputs(h, 201, how), 77, ctx);
        expect(b, `${how}: state`).toEqual(a);
        expect(held(sb), `${how}: alerts and storms`).toEqual(held(sa));
        expect(sb.count('open'), `${how}: alerts opened`).toBe(sa.count('open'));
      }
  }, 120_000);

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
