import { describe, expect, it } from 'vitest';
import { pumpingClock } from '../../../gateway/src/rules/septic-pumping/clock.ts';
import { septicEvaluator } from '../../../gateway/src/rules/septic-pumping/evaluator.ts';
import type { RuleInput } from '../../../gateway/src/rules/types.ts';
import { ctxOf, DAY, HOUR, reading, run, type SiteContext, T0, tick } from '../helpers.ts';

const ctx: SiteContext = ctxOf({
  kind: 'septic',
  septicPumping: { lastPumpedAt: '2023-03-15T12:00:00Z' },
  devices: [{ id: 'tank', kind: 'septic-tank', liquidDepthIn: 60 }],
});
const lvl = (ts: number, values: Record<string, number>): RuleInput =>
  reading('tank', ts, values, { deviceKind: 'septic-tank' });

function feed(inputs: RuleInput[], c = ctx) {
  return run(septicEvaluator, c, inputs, { deviceId: 'tank', checkPurity: true });
}

describe('septic-pumping', () => {
  it('sludge + scum reaching one third of the liquid depth opens one alert (fire once)', () => {
    const below = feed([lvl(T0, { sludgeIn: 14, scumIn: 5.9 })]).sink;
    expect(below.alerts.size).toBe(0);
    const inputs = [lvl(T0, { sludgeIn: 14, scumIn: 5.9 }), lvl(T0 + DAY, { sludgeIn: 14, scumIn: 6 })];
    for (let i = 2; i < 50; i++) inputs.push(lvl(T0 + i * DAY, { sludgeIn: 14.1 }));
    const { sink } = feed(inputs);
    expect(sink.count('open')).toBe(1);
    expect([...sink.alerts.values()][0]).toMatchObject({
      key: `septic-pumping:s1:tank:level:${T0 + DAY}`,
      at: T0 + DAY,
      dueAt: undefined,
    });
  });

  it('a pump-out (sludge + scum falling to a small value) resolves it', () => {
    const { sink, state } = feed([
      lvl(T0, { sludgeIn: 16, scumIn: 6 }),
      lvl(T0 + DAY, { sludgeIn: 1, scumIn: 0.5 }),
      lvl(T0 + 2 * DAY, { sludgeIn: 1.2, scumIn: 0.5 }),
    ]);
    const a = [...sink.alerts.values()][0]!;
    expect(a).toMatchObject({ status: 'resolved', resolvedAt: T0 + DAY });
    expect(a.resolution).toMatchObject({ fromData: true, beforeIn: 22, afterIn: 1.5 });
    expect(state.lastPumpedSeen).toBe(T0 + DAY);
  });

  it('opens a time-based alert at the 2-year reminder, due after 3 years; a logged cleanout resolves it', () => {
    const last = Date.parse('2023-03-15T12:00:00Z');
    const clock = pumpingClock(last, { maxYears: 3, reminderYears: 2 }, 'America/New_York');
    // The reminder begins on the local day two years on; the duty ends with the local day three years on.
    expect(clock.remindAt).toBe(Date.parse('2025-03-15T04:00:00Z'));
    expect(clock.dueAt).toBe(Date.parse('2026-03-16T04:00:00Z') - 1);
    expect(feed([tick(clock.remindAt - 1)]).sink.alerts.size).toBe(0);
    const { sink } = feed([
      tick(T0),
      tick(T0 + HOUR),
      {
        type: 'inspection',
        siteId: 's1',
        at: T0 + 3 * DAY,
        kind: 'cleanout',
        inspector: 'Pumper Co',
        id: 'p1',
      },
      tick(T0 + 4 * DAY),
    ]);
    const alerts = [...sink.alerts.values()];
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({
      key: `septic-pumping:s1:tank:time:${last}`,
      at: clock.remindAt,
      dueAt: clock.dueAt,
      status: 'resolved',
      resolvedAt: T0 + 3 * DAY,
    });
  });

  it('without a known pump-out a duty asks for the last one at once (never silent)', () => {
    const c = ctxOf({ kind: 'septic', devices: [{ id: 'tank', kind: 'septic-tank', liquidDepthIn: 60 }] });
    const alerts = [...feed([tick(T0), tick(T0 + DAY)], c).sink.alerts.values()];
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ key: `septic-pumping:s1:tank:unknown:${T0}`, at: T0, status: 'open' });
    expect(alerts[0]!.message).toContain('When was tank');
  });

  it('a pump-out meets only the duties begun at or before it', () => {
    const pumped = (at: number, id: string): RuleInput => ({
      type: 'inspection',
      siteId: 's1',
      at,
      kind: 'cleanout',
      inspector: 'Pumper Co',
      id,
    });
    const last = Date.parse('2023-03-15T12:00:00Z');
    // The level alert opens at T0 + DAY; a pump-out logged late, dated before it, leaves it open.
    const { sink } = feed([
      lvl(T0 + DAY, { sludgeIn: 14, scumIn: 6 }),
      pumped(T0, 'early'),
      pumped(T0 + 2 * DAY, 'p2'),
    ]);
    const level = [...sink.alerts.values()].find((a) => a.key.includes(':level:'))!;
    expect(level).toMatchObject({ status: 'resolved', resolvedAt: T0 + 2 * DAY });
    expect(level.resolution).toMatchObject({ inspectionId: 'p2' });
    // The time alert counts from the pump-out of 2023-03-15: one dated before that is not its pump-out;
    // one dated after it but before its years were up (logged late) supersedes it, closed at its start.
    const time = feed([tick(T0), pumped(last - DAY, 'older'), pumped(last + DAY, 'newer')]).sink;
    const t = [...time.alerts.values()][0]!;
    expect(t).toMatchObject({ key: `septic-pumping:s1:tank:time:${last}`, resolvedAt: t.at });
    expect(t.resolution).toMatchObject({ superseded: true, inspectionId: 'newer' });
    // One dated after the years were up meets it.
    const met = feed([tick(T0), pumped(T0 - DAY, 'late-but-after')]).sink;
    const m = [...met.alerts.values()][0]!;
    expect(m).toMatchObject({ status: 'resolved', resolvedAt: T0 - DAY });
    expect(m.resolution?.superseded).toBeUndefined();
  });
});
