/**
 * The pump-out clock from a site's history on record: the years between pump-outs count from the last
 * pump-out on record; one on record dated before a time alert's years were up supersedes it.
 */
import { describe, expect, it } from 'vitest';
import { pumpingClock } from '../../../gateway/src/rules/septic-pumping/clock.ts';
import { septicEvaluator } from '../../../gateway/src/rules/septic-pumping/evaluator.ts';
import type { RuleInput } from '../../../gateway/src/rules/types.ts';
import { ctxOf, DAY, reading, run, type SiteContext, T0, tick } from '../helpers.ts';

const iso = (t: number) => new Date(t).toISOString();
const tank = { id: 'tank', kind: 'septic-tank', liquidDepthIn: 60 };
const site = (extra: Record<string, unknown>): SiteContext =>
  ctxOf({ kind: 'septic', devices: [tank], ...extra });
const clockOf = (pumped: number) =>
  pumpingClock(pumped, { maxYears: 3, reminderYears: 2 }, 'America/New_York');
const feed = (c: SiteContext, inputs: RuleInput[], state?: ReturnType<typeof septicEvaluator.init>) =>
  run(septicEvaluator, c, inputs, { deviceId: 'tank', checkPurity: true, ...(state ? { state } : {}) });

describe('septic-pumping: the history on record', () => {
  it('a pump-out on record: nothing before its 2-year reminder; the duty opens then, due after 3 years', () => {
    const pumped = T0 - 2 * 365 * DAY + 2 * DAY;
    const c = site({ history: { lastPumpOut: iso(pumped) } });
    const { sink, state } = feed(c, [tick(T0), tick(T0 + DAY)]);
    expect(sink.alerts.size).toBe(0);
    expect(state.lastPumpedSeen).toBe(pumped);
    const { remindAt, dueAt } = clockOf(pumped);
    const later = feed(c, [tick(remindAt)], state).sink;
    expect([...later.alerts.values()][0]).toMatchObject({
      key: `septic-pumping:s1:tank:time:${pumped}`,
      at: remindAt,
      dueAt,
      status: 'open',
    });
  });

  it('a pump-out on record before an open time alert began supersedes it; the clock runs from it', () => {
    // Configured last pump-out 2020-01-10: the alert opened at its reminder, on 2022-01-10. The history
    // shows the tank was pumped on 2021-06-01, so the alert never was due; the next is due 2024-06-01.
    const cfg = site({ septicPumping: { lastPumpedAt: '2020-01-10T12:00:00Z' } });
    const opened = feed(cfg, [tick(T0)]);
    const first = [...opened.sink.alerts.values()][0]!;
    expect(first.at).toBe(clockOf(Date.parse('2020-01-10T12:00:00Z')).remindAt);
    const pumped = Date.parse('2021-06-01T12:00:00Z');
    const c = site({
      septicPumping: { lastPumpedAt: '2020-01-10T12:00:00Z' },
      history: { lastPumpOut: iso(pumped) },
    });
    const { sink } = feed(c, [tick(T0 + DAY)], opened.state);
    expect(sink.effects[0]).toMatchObject({
      type: 'resolve',
      key: first.key,
      at: first.at,
      evidence: { superseded: true, onRecord: true, pumpedAt: iso(pumped) },
    });
    expect([...sink.alerts.values()][0]).toMatchObject({
      key: `septic-pumping:s1:tank:time:${pumped}`,
      at: clockOf(pumped).remindAt,
      dueAt: clockOf(pumped).dueAt,
      status: 'open',
    });
  });

  it('a pump-out on record after a level alert began resolves it (met, with the record)', () => {
    const c0 = site({});
    const raised = feed(c0, [
      reading('tank', T0, { sludgeIn: 16, scumIn: 6 }, { deviceKind: 'septic-tank' }),
    ]);
    const c = site({ history: { lastPumpOut: iso(T0 + DAY) } });
    const { sink } = feed(c, [tick(T0 + 2 * DAY)], raised.state);
    expect(sink.effects[0]).toMatchObject({ type: 'resolve', at: T0 + DAY, evidence: { onRecord: true } });
    expect(sink.effects[0]!.type === 'resolve' && sink.effects[0]!.evidence.superseded).toBeFalsy();
  });
});
