/**
 * A slice of one binding's readings, in order, evaluated at once: the evaluator's own `evaluateReadings`
 * when it has one (one copy of the state for the slice), else `evaluate` given each reading in turn.
 * Either way the state is the one the readings give one by one, and the effects, applied in order, leave
 * the same alerts and storm records (an evaluator may report a change once per slice, not per reading).
 */
import type { Reading } from '../../../shared/src/telemetry.ts';
import type { RuleParams } from './context.ts';
import type { Effect, Evaluation, Evaluator, RuleContext } from './types.ts';

export function evaluateSlice<S, Id extends string, P extends RuleParams>(
  ev: Evaluator<S, Id, P>,
  state: S,
  readings: readonly Reading[],
  ctx: RuleContext<P>,
): Evaluation<S, Id> {
  if (readings.length > 1 && ev.evaluateReadings) return ev.evaluateReadings(state, readings, ctx);
  return oneByOne(ev, state, readings, ctx);
}

/** `evaluate` given each reading in turn; the earliest wake-up any asked for. */
export function oneByOne<S, Id extends string, P extends RuleParams>(
  ev: Evaluator<S, Id, P>,
  state: S,
  readings: readonly Reading[],
  ctx: RuleContext<P>,
): Evaluation<S, Id> {
  let s = state;
  const effects: Effect<Id>[] = [];
  let wakeAt = Number.POSITIVE_INFINITY;
  for (const reading of readings) {
    const out = ev.evaluate(s, { type: 'reading', reading }, ctx);
    s = out.state;
    for (const e of out.effects) effects.push(e);
    if (out.wakeAt !== undefined) wakeAt = Math.min(wakeAt, out.wakeAt);
  }
  return wakeAt === Number.POSITIVE_INFINITY ? { state: s, effects } : { state: s, effects, wakeAt };
}
