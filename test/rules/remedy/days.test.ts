/**
 * The remedy days counted as the law counts days (shared/src/days.ts): from the day the alarm began, that
 * day not counted, the 5th (equipment) or 30th (absorption field) local day whole, across a change of
 * daylight saving time; a state of version 1 has its open alerts counted again at the next tick.
 */
import { describe, expect, it } from 'vitest';
import {
  ALARM_STATE_VERSION,
  alarmEvaluator,
  upgradeAlarmState,
} from '../../../gateway/src/rules/remedy/evaluator.ts';
import type { RuleInput } from '../../../gateway/src/rules/types.ts';
import { ctxOf, reading, run, type SiteContext, tick } from '../helpers.ts';

const S = 1000;
const at = (s: string) => Date.parse(s);
const ctx: SiteContext = ctxOf(
  { kind: 'alternative-system', devices: [{ id: 'panel', kind: 'septic-panel', liquidDepthIn: 60 }] },
  'America/New_York',
);
const alarm = (ts: number, alarms: Record<string, boolean>): RuleInput =>
  reading('panel', ts, {}, { deviceKind: 'septic-panel', alarms, receivedAt: ts });
const feed = (inputs: RuleInput[], state?: ReturnType<typeof alarmEvaluator.init>) =>
  run(alarmEvaluator, ctx, inputs, { deviceId: 'panel', checkPurity: true, ...(state ? { state } : {}) });

/** A pump alarm held from `began`, back to normal (held) at `remedied`. */
function episode(began: number, remedied: number) {
  const { sink } = feed([
    alarm(began, { pump: true }),
    alarm(began + 61 * S, { pump: true }),
    alarm(remedied, { pump: false }),
    alarm(remedied + 61 * S, { pump: false }),
  ]);
  return [...sink.alerts.values()][0]!;
}

describe('remedy: the 5th day whole', () => {
  it('an alarm at 23:50 on June 1: remedied on June 6 at 23:59 is within, on June 7 at 00:00 is not', () => {
    const began = at('2026-06-01T23:50:00-04:00');
    const ok = episode(began, at('2026-06-06T23:59:00-04:00'));
    expect(ok.dueAt).toBe(at('2026-06-07T00:00:00-04:00') - 1);
    expect(ok.resolution).toMatchObject({ withinDeadline: true });
    const late = episode(began, at('2026-06-07T00:00:00-04:00'));
    expect(late.resolution).toMatchObject({ withinDeadline: false });
  });

  it('an alarm just after midnight gets no more than the 5 days after its day', () => {
    const began = at('2026-06-01T00:05:00-04:00');
    const a = episode(began, at('2026-06-02T09:00:00-04:00'));
    expect(a.dueAt).toBe(at('2026-06-07T00:00:00-04:00') - 1);
  });

  it('across the November change: 5 days of October 30 end with November 4, EST', () => {
    const a = episode(at('2026-10-30T15:00:00-04:00'), at('2026-11-02T09:00:00-05:00'));
    expect(a.dueAt).toBe(at('2026-11-05T00:00:00-05:00') - 1);
  });

  it('the absorption field: the 30th day whole', () => {
    const began = at('2026-06-01T14:00:00-04:00');
    const { sink } = feed([alarm(began, { field: true }), alarm(began + 61 * S, { field: true })]);
    expect([...sink.alerts.values()][0]).toMatchObject({
      rule: 'field-remedy',
      dueAt: at('2026-07-02T00:00:00-04:00') - 1,
    });
  });

  it('a fraction of a day is refused in the configuration', () => {
    expect(() => ctxOf({ kind: 'alternative-system', equipmentRemedyDays: 4.5 })).toThrow();
  });

  it('a state of version 1: its open alert is opened again with the due time counted so, once', () => {
    const began = at('2026-06-01T23:50:00-04:00');
    const opened = feed([alarm(began, { pump: true }), alarm(began + 61 * S, { pump: true })]);
    const v1 = { ...opened.state, v: 1 } as unknown;
    const state = upgradeAlarmState(v1, 1);
    expect(state).toMatchObject({ v: ALARM_STATE_VERSION, recount: true });
    const { sink, state: after } = feed([tick(began + 2 * 3_600_000), tick(began + 3 * 3_600_000)], state);
    const opens = sink.effects.filter((e) => e.type === 'open');
    expect(opens).toHaveLength(1);
    expect(opens[0]).toMatchObject({
      key: `equipment-remedy:s1:panel:pump:${began}`,
      dueAt: at('2026-06-07T00:00:00-04:00') - 1,
    });
    expect(after.recount).toBeUndefined();
  });
});
