/**
 * Septic pumping never silent (law 000, appendix VII: "pumped every 2-3 years … The individual or firm
 * retained to pump out the septic tank must have a valid permit issued by NYS DEC"): a tank with no
 * pump-out on record gets a duty at once asking for its last one; recording one starts the clock, the
 * duty opens at 2 years and is due at the end of the day 3 years on, in the site's calendar.
 */
import { describe, expect, it } from 'vitest';
import { pumpingClock } from '../../../gateway/src/rules/septic-pumping/clock.ts';
import { septicEvaluator } from '../../../gateway/src/rules/septic-pumping/evaluator.ts';
import type { RuleInput } from '../../../gateway/src/rules/types.ts';
import { addLocalYears } from '../../../shared/src/days.ts';
import { ctxOf, DAY, run, type SiteContext, T0, tick } from '../helpers.ts';

const tz = 'America/New_York';
const c: SiteContext = ctxOf({ kind: 'septic', devices: [{ id: 'tank', kind: 'septic-tank' }] }, tz);
const feed = (inputs: RuleInput[], state?: ReturnType<typeof septicEvaluator.init>, ctx = c) =>
  run(septicEvaluator, ctx, inputs, { deviceId: 'tank', checkPurity: true, ...(state ? { state } : {}) });
const pumpOut = (at: number, receivedAt: number, id = 'insp-P'): RuleInput => ({
  type: 'inspection',
  siteId: 's1',
  at,
  receivedAt,
  kind: 'cleanout',
  inspector: 'Owner',
  id,
  details: { hauler: { name: 'Valley Septic Service', permit: '3-1234-00567' } },
});

describe('septic-pumping: never silent, reminded at 2 years, due at 3', () => {
  it('no pump-out on record: a duty at once asks for it; recording one answers it and starts the clock', () => {
    const asked = feed([tick(T0)]);
    const [q] = [...asked.sink.alerts.values()];
    expect(q).toMatchObject({ key: `septic-pumping:s1:tank:unknown:${T0}`, at: T0, status: 'open' });
    expect(q!.dueAt).toBeUndefined();
    expect(q!.message).toMatch(/^When was tank .* last pumped\?/);
    expect(q!.message).toContain('DEC permit');
    // Recorded two days later, for a pump-out of a year and a half before.
    const pumped = T0 - 540 * DAY;
    const { sink, state } = feed([pumpOut(pumped, T0 + 2 * DAY), tick(T0 + 3 * DAY)], asked.state);
    expect(sink.effects[0]).toMatchObject({
      type: 'resolve',
      key: q!.key,
      at: T0 + 2 * DAY,
      evidence: {
        answered: true,
        lastPumpedAt: new Date(pumped).toISOString(),
        hauler: 'Valley Septic Service',
        haulerPermit: '3-1234-00567',
      },
    });
    expect(state.lastPumpedSeen).toBe(pumped);
    expect(state.unknown).toBeNull();
    // Nothing more until the 2-year reminder.
    expect(sink.alerts.size).toBe(0);
    const { remindAt, dueAt } = pumpingClock(pumped, { maxYears: 3, reminderYears: 2 }, tz);
    const before = feed([tick(remindAt - 1)], state).sink;
    expect(before.alerts.size).toBe(0);
    const at2 = feed([tick(remindAt)], state).sink;
    expect([...at2.alerts.values()][0]).toMatchObject({
      key: `septic-pumping:s1:tank:time:${pumped}`,
      at: remindAt,
      dueAt,
      status: 'open',
    });
  });

  it('the 2-year reminder opens at the local start of the anniversary; due at the end of the 3rd', () => {
    // Pumped at 9 PM EST on Jan 10, 2022 (02:00Z on Jan 11): the local date is Jan 10.
    const pumped = Date.parse('2022-01-11T02:00:00Z');
    const clock = pumpingClock(pumped, { maxYears: 3, reminderYears: 2 }, tz);
    expect(clock.remindAt).toBe(Date.parse('2024-01-10T05:00:00Z'));
    expect(clock.dueAt).toBe(Date.parse('2025-01-11T05:00:00Z') - 1);
    const ctx = ctxOf(
      {
        kind: 'septic',
        devices: [{ id: 'tank', kind: 'septic-tank' }],
        history: { lastPumpOut: '2022-01-11T02:00:00Z' },
      },
      tz,
    );
    const [a] = [...feed([tick(Date.parse('2024-06-01T12:00:00Z'))], undefined, ctx).sink.alerts.values()];
    expect(a).toMatchObject({ at: clock.remindAt, dueAt: clock.dueAt });
    expect(a!.message).toContain('by the end of January 10, 2025');
  });

  it('a pump-out on February 29: its anniversaries in common years are February 28', () => {
    expect(addLocalYears({ year: 2024, month: 2, day: 29 }, 2)).toEqual({ year: 2026, month: 2, day: 28 });
    expect(addLocalYears({ year: 2024, month: 2, day: 29 }, 4)).toEqual({ year: 2028, month: 2, day: 29 });
    expect(addLocalYears({ year: 2024, month: 3, day: 1 }, 2)).toEqual({ year: 2026, month: 3, day: 1 });
    // 10 AM EST on Feb 29, 2024.
    const pumped = Date.parse('2024-02-29T15:00:00Z');
    const clock = pumpingClock(pumped, { maxYears: 3, reminderYears: 2 }, tz);
    // Reminder from the start of Feb 28, 2026; due by the end of Feb 28, 2027 (local midnight, EST).
    expect(clock.remindAt).toBe(Date.parse('2026-02-28T05:00:00Z'));
    expect(clock.dueAt).toBe(Date.parse('2027-03-01T05:00:00Z') - 1);
    const ctx = ctxOf(
      {
        kind: 'septic',
        devices: [{ id: 'tank', kind: 'septic-tank' }],
        history: { lastPumpOut: '2024-02-29T15:00:00Z' },
      },
      tz,
    );
    expect(feed([tick(clock.remindAt - 1)], undefined, ctx).sink.alerts.size).toBe(0);
    const [a] = [...feed([tick(clock.remindAt)], undefined, ctx).sink.alerts.values()];
    expect(a).toMatchObject({ at: clock.remindAt, dueAt: clock.dueAt });
    expect(a!.message).toContain('by the end of February 28, 2027');
  });

  it('a pump-out between the reminder and the due time meets the duty; one after it is late but meets it', () => {
    const pumped = Date.parse('2022-05-02T16:00:00Z');
    const ctx = ctxOf(
      {
        kind: 'septic',
        devices: [{ id: 'tank', kind: 'septic-tank' }],
        history: { lastPumpOut: '2022-05-02T16:00:00Z' },
      },
      tz,
    );
    const clock = pumpingClock(pumped, { maxYears: 3, reminderYears: 2 }, tz);
    const open = feed([tick(clock.remindAt + DAY)], undefined, ctx);
    const next = clock.remindAt + 100 * DAY;
    const { sink, state } = feed([pumpOut(next, next + DAY)], open.state, ctx);
    expect(sink.effects[0]).toMatchObject({
      type: 'resolve',
      at: next,
      evidence: { hauler: 'Valley Septic Service' },
    });
    expect(state.lastPumpedSeen).toBe(next);
  });

  it('the question closed by a person with no date: the clock runs from then, never silent', () => {
    const asked = feed([tick(T0)]);
    const key = [...asked.sink.alerts.keys()][0]!;
    const closed = feed(
      [{ type: 'alert-closed', key, at: T0 + DAY, how: 'manual' }, tick(T0 + 2 * DAY)],
      asked.state,
    );
    expect(closed.sink.count('open')).toBe(0);
    expect(closed.state.lastPumpedSeen).toBe(T0 + DAY);
  });

  it('a site configuration naming the last pump-out answers the question', () => {
    const asked = feed([tick(T0)]);
    const ctx = ctxOf(
      {
        kind: 'septic',
        devices: [{ id: 'tank', kind: 'septic-tank' }],
        septicPumping: { lastPumpedAt: '2025-10-01T12:00:00Z' },
      },
      tz,
    );
    const { sink } = feed([tick(T0 + DAY)], asked.state, ctx);
    expect(sink.effects[0]).toMatchObject({ type: 'resolve', at: T0 + DAY, evidence: { answered: true } });
  });
});
