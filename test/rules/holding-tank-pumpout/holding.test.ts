import { describe, expect, it } from 'vitest';
import { holdingEvaluator } from '../../../gateway/src/rules/holding-tank-pumpout/evaluator.ts';
import type { RuleInput } from '../../../gateway/src/rules/types.ts';
import { ctxOf, HOUR, reading, run, type SiteContext, T0, tick } from '../helpers.ts';

const S = 1000;
const ctx: SiteContext = ctxOf({
  kind: 'holding-tank',
  devices: [{ id: 'ht', kind: 'holding-tank', highLevelIn: 48, liquidDepthIn: 60 }],
});
const alarmOnly: SiteContext = ctxOf({ kind: 'holding-tank', devices: [{ id: 'ht', kind: 'holding-tank' }] });
const level = (ts: number, levelIn: number): RuleInput =>
  reading('ht', ts, { levelIn }, { deviceKind: 'holding-tank' });
const float = (ts: number, highWater: boolean): RuleInput =>
  reading('ht', ts, {}, { deviceKind: 'holding-tank', alarms: { highWater } });

function feed(inputs: RuleInput[], c = ctx) {
  return run(holdingEvaluator, c, inputs, { deviceId: 'ht', checkPurity: true });
}

describe('holding-tank-pumpout', () => {
  it('opens at the high level (once) and resolves when a pump-out brings the level well below', () => {
    const inputs = [level(T0, 40), level(T0 + HOUR, 48), level(T0 + 2 * HOUR, 50), level(T0 + 3 * HOUR, 51)];
    inputs.push(level(T0 + 4 * HOUR, 30), level(T0 + 5 * HOUR, 6), level(T0 + 6 * HOUR, 7));
    const { sink } = feed(inputs);
    expect(sink.count('open')).toBe(1);
    const a = [...sink.alerts.values()][0]!;
    expect(a).toMatchObject({ at: T0 + HOUR, status: 'resolved', resolvedAt: T0 + 5 * HOUR });
    expect(a.resolution).toMatchObject({ peak: { levelIn: 51 }, after: { levelIn: 6 } });
  });

  it('a held high-water float opens (at = when it began); a bouncing one does not', () => {
    const bounce: RuleInput[] = [];
    for (let i = 0; i < 30; i++) bounce.push(float(T0 + i * 10 * S, i % 2 === 0));
    expect(feed(bounce, alarmOnly).sink.alerts.size).toBe(0);
    const { sink } = feed(
      [float(T0, true), float(T0 + 70 * S, true), float(T0 + HOUR, false), tick(T0 + HOUR + 2 * 60 * S)],
      alarmOnly,
    );
    const a = [...sink.alerts.values()][0]!;
    expect(a).toMatchObject({ at: T0, status: 'resolved', resolvedAt: T0 + HOUR });
  });

  it('with a level sensor, the float going quiet does not count as a pump-out; the level does', () => {
    const { sink } = feed([
      level(T0, 49),
      float(T0 + 10 * S, true),
      float(T0 + 90 * S, true),
      float(T0 + HOUR, false),
      tick(T0 + 2 * HOUR),
    ]);
    expect(sink.count('open')).toBe(1);
    expect([...sink.alerts.values()][0]!.status).toBe('open');
  });
});

describe('holding-tank-pumpout: a reading costs the same however many samples the float has', () => {
  it('shares the samples it keeps with the state it was given, and leaves that state as it was', () => {
    let state = holdingEvaluator.init(ctx, 'ht');
    for (let i = 0; i < 2000; i++)
      state = holdingEvaluator.evaluate(state, float(T0 + i * S, false), ctx).state;
    expect(state.float.samples).toHaveLength(2000);
    const before = JSON.stringify(state);
    const next = holdingEvaluator.evaluate(state, float(T0 + 2000 * S, false), ctx).state;
    expect(next.float.samples).toHaveLength(2001);
    expect(next.float.samples).not.toBe(state.float.samples);
    expect(next.float.samples[100]).toBe(state.float.samples[100]);
    expect(JSON.stringify(state)).toBe(before);
  });
});
