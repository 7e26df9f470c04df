/**
 * What a reading costs the storm rule (storm-inspection/evaluator.ts): the same whatever the window
 * holds. A reading newer than every other touches only the newest chunk of the window and the newest
 * event; a late one only the chunk it lands in and the events it changes; the state stays small.
 */
import { describe, expect, it } from 'vitest';
import { type StormState, stormEvaluator } from '../../../gateway/src/rules/storm-inspection/evaluator.ts';
import { ctxOf, HOUR, reading, T0 } from '../helpers.ts';

const ctx = ctxOf({ kind: 'construction', devices: [{ id: 'rg', kind: 'rain-gauge', inchesPerTip: 0.01 }] });

/** A gauge at 50 msg/s with a rising counter: 5000 readings (the window's cap), one long storm. */
function busyGauge(): StormState {
  let s = stormEvaluator.init(ctx, 'rg');
  for (let i = 0; i < 5000; i++)
    s = stormEvaluator.evaluate(s, reading('rg', T0 + i * 20, { rainTips: 1000 + i }), ctx).state;
  return s;
}

describe('storm-inspection: a reading costs the same whatever the window holds', () => {
  const full = busyGauge();

  it('keeps the window and its state small: a few bytes a reading', () => {
    expect(full.win.size).toBe(5000);
    expect(JSON.stringify(full).length).toBeLessThan(40_000);
  });

  it('a newer reading shares every sealed chunk and every older event with the state it was given', () => {
    const before = JSON.stringify(full);
    const next = stormEvaluator.evaluate(full, reading('rg', T0 + 5000 * 20, { rainTips: 6000 }), ctx).state;
    expect(JSON.stringify(full)).toBe(before);
    const sealed = full.win.chunks.slice(0, -2);
    expect(sealed.every((c) => next.win.chunks.includes(c))).toBe(true);
    expect(next.events.at(-1)).toMatchObject({ tips: 5000 });
  });

  it('a late reading changes the chunk it lands in and the events it touches, no other', () => {
    const s = stormEvaluator.evaluate(
      full,
      reading('rg', T0 + 5000 * 20 + 7 * HOUR, { rainTips: 6000 }),
      ctx,
    ).state;
    const late = stormEvaluator.evaluate(s, reading('rg', T0 + 2500 * 20 + 5, { rainTips: 3500 }), ctx);
    const changed = late.state.win.chunks.filter((c) => !s.win.chunks.includes(c));
    expect(changed.length).toBeLessThanOrEqual(2);
    // The newest event (the heartbeat's storm, 7 h later) is the same object: the late reading did not reach it.
    expect(late.state.events.at(-1)).toBe(s.events.at(-1));
  });
});
