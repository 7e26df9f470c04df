/**
 * "Every seven days" counted as the law counts days (shared/src/days.ts): the next report is due by the
 * end of the 7th local day after the day of the last; the work's time is the measure (an inspection made
 * on the land on time is on time, whenever its record reached the gateway); a state of version 1 has its
 * open period counted again at the next tick.
 */
import { describe, expect, it } from 'vitest';
import {
  ROUTINE_STATE_VERSION,
  routineEvaluator,
  upgradeRoutineState,
} from '../../../gateway/src/rules/routine-inspection/evaluator.ts';
import { routineInspection } from '../../../gateway/src/rules/routine-inspection/index.ts';
import type { RuleInput } from '../../../gateway/src/rules/types.ts';
import { ctxOf, run, tick } from '../helpers.ts';

const at = (s: string) => Date.parse(s);
const ctx = ctxOf({ kind: 'construction' }, 'America/New_York');
const MONDAY = at('2026-06-01T16:00:00-04:00');
const insp = (work: number, received: number, id: string): RuleInput => ({
  type: 'inspection',
  siteId: 's1',
  at: work,
  receivedAt: received,
  kind: 'routine',
  inspector: 'J. Doe',
  id,
});
const feed = (inputs: RuleInput[], state?: ReturnType<typeof routineEvaluator.init>) =>
  run(routineEvaluator, ctx, inputs, { checkPurity: true, ...(state ? { state } : {}) });

describe('routine-inspection: every seven days, the 7th day whole', () => {
  it('an inspection on Monday June 1 at 16:00: due by the end of Monday June 8', () => {
    const { sink } = feed([insp(MONDAY, MONDAY, 'i1')]);
    const next = [...sink.alerts.values()].at(-1)!;
    expect(next.dueAt).toBe(at('2026-06-09T00:00:00-04:00') - 1);
  });

  it('the next on June 8 at 23:59 is on time; on June 9 at 00:00 it is late', () => {
    for (const [work, onTime] of [
      ['2026-06-08T23:59:00-04:00', true],
      ['2026-06-09T00:00:00-04:00', false],
    ] as const) {
      const { sink } = feed([insp(MONDAY, MONDAY, 'i1'), insp(at(work), at(work), 'i2')]);
      expect(sink.alerts.get(`routine-inspection:s1:${MONDAY}`)!.resolution, work).toMatchObject({
        onTime,
      });
    }
  });

  it('done on time but sent late: on time, the work is the measure', () => {
    const work = at('2026-06-08T10:00:00-04:00');
    const { sink } = feed([insp(MONDAY, MONDAY, 'i1'), insp(work, at('2026-06-10T09:00:00-04:00'), 'i2')]);
    const a = sink.alerts.get(`routine-inspection:s1:${MONDAY}`)!;
    expect(a.resolvedAt).toBe(work);
    expect(a.resolution).toMatchObject({ onTime: true });
    expect(routineInspection.duty.measure).toBe('work');
  });

  it('a state of version 1: its open period is opened again with the due time counted so, once', () => {
    const opened = feed([insp(MONDAY, MONDAY, 'i1')]);
    const v1 = { ...opened.state, v: 1, period: { ...opened.state.period!, dueAt: MONDAY + 7 * 86_400_000 } };
    const state = upgradeRoutineState(v1, 1);
    expect(state).toMatchObject({ v: ROUTINE_STATE_VERSION, recount: true });
    const { sink, state: after } = feed([tick(MONDAY + 3_600_000), tick(MONDAY + 7_200_000)], state);
    expect(sink.effects).toHaveLength(1);
    expect(sink.effects[0]).toMatchObject({
      type: 'open',
      key: `routine-inspection:s1:${MONDAY}`,
      dueAt: at('2026-06-09T00:00:00-04:00') - 1,
    });
    expect(after.recount).toBeUndefined();
    expect(after.period?.dueAt).toBe(at('2026-06-09T00:00:00-04:00') - 1);
    expect(() => upgradeRoutineState(v1, 2)).toThrow();
  });
});
