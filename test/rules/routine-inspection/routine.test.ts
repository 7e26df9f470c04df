import { describe, expect, it } from 'vitest';
import { routineEvaluator } from '../../../gateway/src/rules/routine-inspection/evaluator.ts';
import type { RuleInput } from '../../../gateway/src/rules/types.ts';
import { withinDays } from '../../../shared/src/days.ts';
import { ctxOf, DAY, HOUR, run, T0, tick } from '../helpers.ts';

const ctx = ctxOf({ kind: 'construction' });
/** Due by the end of the 7th local day after the day of `start` (its last instant). */
const due7 = (start: number) => withinDays(start, 7, 'America/New_York') - 1;
const insp = (at: number, id: string, kind = 'routine'): RuleInput => ({
  type: 'inspection',
  siteId: 's1',
  at,
  kind,
  inspector: 'J. Doe',
  id,
});

function feed(inputs: RuleInput[], c = ctx) {
  return run(routineEvaluator, c, inputs, { checkPurity: true });
}

describe('routine-inspection', () => {
  it('with no inspection on record, the clock starts at the first tick: due by the end of the 7th day after', () => {
    const { sink } = feed([tick(T0), tick(T0 + HOUR), tick(T0 + 8 * DAY)]);
    expect(sink.count('open')).toBe(1);
    expect([...sink.alerts.values()][0]).toMatchObject({
      key: `routine-inspection:s1:${T0}`,
      at: T0,
      dueAt: due7(T0),
      status: 'open',
    });
  });

  it('an inspection resolves the period and opens the next, due by the end of the 7th day after it (weekends included)', () => {
    const first = T0 + 3 * DAY + 5 * HOUR;
    const { sink } = feed([tick(T0), insp(first, 'i1'), tick(first + DAY)]);
    const alerts = [...sink.alerts.values()];
    expect(alerts).toHaveLength(2);
    expect(alerts[0]).toMatchObject({ status: 'resolved', resolvedAt: first });
    expect(alerts[0]!.resolution).toMatchObject({ inspectionId: 'i1', onTime: true });
    expect(alerts[1]).toMatchObject({
      key: `routine-inspection:s1:${first}`,
      at: first,
      dueAt: due7(first),
    });
  });

  it('a late inspection is recorded as not on time; a storm inspection also restarts the clock', () => {
    const { sink } = feed([tick(T0), insp(T0 + 9 * DAY, 'i1'), insp(T0 + 12 * DAY, 'i2', 'storm')]);
    const alerts = [...sink.alerts.values()];
    expect(alerts[0]!.resolution).toMatchObject({ onTime: false });
    expect(alerts[1]!.resolution).toMatchObject({ inspectionKind: 'storm', onTime: true });
    expect(alerts[2]).toMatchObject({ at: T0 + 12 * DAY, dueAt: due7(T0 + 12 * DAY), status: 'open' });
  });

  it('an inspection logged late, older than the latest, changes nothing; duplicates count once', () => {
    const { sink } = feed([
      tick(T0),
      insp(T0 + 5 * DAY, 'i1'),
      insp(T0 + 2 * DAY, 'i0'),
      insp(T0 + 5 * DAY, 'i1'),
    ]);
    expect(sink.count('open')).toBe(2);
    expect(sink.count('resolve')).toBe(1);
  });

  it('an annual septic report or a cleanout record is not a routine inspection', () => {
    const { sink } = feed([tick(T0), insp(T0 + DAY, 'a', 'annual'), insp(T0 + DAY, 'c', 'cleanout')]);
    expect(sink.count('resolve')).toBe(0);
  });

  it('an inactive site has no routine duty', () => {
    const inactive = ctxOf({ kind: 'construction', active: false });
    expect(feed([tick(T0), tick(T0 + 10 * DAY)], inactive).sink.effects).toHaveLength(0);
    // Open, then the site becomes inactive (configuration change): resolved at the next tick.
    const { state } = feed([tick(T0)]);
    const after = run(routineEvaluator, inactive, [tick(T0 + DAY)], { state }).sink;
    expect(after.count('resolve')).toBe(1);
  });

  it('a person closing the period restarts the clock then', () => {
    const { sink } = feed([
      tick(T0),
      { type: 'alert-closed', key: `routine-inspection:s1:${T0}`, at: T0 + 2 * DAY, how: 'manual' },
    ]);
    const alerts = [...sink.alerts.values()];
    expect(alerts[1]).toMatchObject({ at: T0 + 2 * DAY, dueAt: due7(T0 + 2 * DAY) });
  });

  it('an inspection dated before the period began supersedes it: the clock runs from the inspection', () => {
    // The clock started at the first tick (no inspection on record): a report dated a day before it is
    // the last on record, so the period that began at the tick is closed as superseded (at its start,
    // never as met) and the next runs from the report.
    const { sink, state } = feed([tick(T0), insp(T0 - DAY, 'old')]);
    const [first, next] = [...sink.alerts.values()];
    expect(first).toMatchObject({ at: T0, status: 'resolved', resolvedAt: T0 });
    expect(first!.resolution).toMatchObject({ superseded: true, inspectionId: 'old' });
    expect(first!.resolution?.onTime).toBeUndefined();
    expect(next).toMatchObject({ at: T0 - DAY, dueAt: due7(T0 - DAY), status: 'open' });
    expect(state.last?.id).toBe('old');
    // After a person closed a period, the next begins then: an inspection between the two, newer than
    // the last on record, supersedes it too; one after it meets the period that inspection began.
    const closed = feed([
      tick(T0),
      { type: 'alert-closed', key: `routine-inspection:s1:${T0}`, at: T0 + 2 * DAY, how: 'manual' },
      insp(T0 + DAY, 'between'),
      insp(T0 + 3 * DAY, 'after'),
    ]).sink;
    const alerts = [...closed.alerts.values()];
    expect(alerts[1]).toMatchObject({ at: T0 + 2 * DAY, status: 'resolved', resolvedAt: T0 + 2 * DAY });
    expect(alerts[1]!.resolution).toMatchObject({ superseded: true, inspectionId: 'between' });
    expect(alerts[2]).toMatchObject({ at: T0 + DAY, status: 'resolved', resolvedAt: T0 + 3 * DAY });
    expect(alerts[2]!.resolution).toMatchObject({ inspectionId: 'after', onTime: true });
    expect(alerts[3]).toMatchObject({ at: T0 + 3 * DAY, status: 'open' });
  });
});
