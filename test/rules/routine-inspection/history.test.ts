/**
 * The routine clock from a site's history on record and from inspections logged late: it runs from the
 * latest inspection on record, whatever the period that was open said, to the end of the 7th local day
 * after that inspection's day, across a change of daylight saving time too.
 */
import { describe, expect, it } from 'vitest';
import { routineEvaluator } from '../../../gateway/src/rules/routine-inspection/evaluator.ts';
import type { RuleInput } from '../../../gateway/src/rules/types.ts';
import { withinDays } from '../../../shared/src/days.ts';
import { formatLocal } from '../../../shared/src/time.ts';
import { ctxOf, DAY, HOUR, run, type SiteContext, T0, tick } from '../helpers.ts';

/** Due by the end of the 7th local day after the day of `start` (its last instant). */
const due7 = (start: number) => withinDays(start, 7, 'America/New_York') - 1;
const iso = (t: number) => new Date(t).toISOString();
const withHistory = (lastRoutineInspection: number, extra: Record<string, unknown> = {}): SiteContext =>
  ctxOf({ kind: 'construction', history: { lastRoutineInspection: iso(lastRoutineInspection) }, ...extra });
const insp = (at: number, id: string): RuleInput => ({
  type: 'inspection',
  siteId: 's1',
  at,
  kind: 'routine',
  inspector: 'J. Doe',
  id,
});
const feed = (c: SiteContext, inputs: RuleInput[], state?: ReturnType<typeof routineEvaluator.init>) =>
  run(routineEvaluator, c, inputs, { checkPurity: true, ...(state ? { state } : {}) });

describe('routine-inspection: the history on record', () => {
  it('a site added with its last inspection 3 days ago is due in 4 days, not 7', () => {
    const last = T0 - 3 * DAY;
    const { sink, state } = feed(withHistory(last), [tick(T0), tick(T0 + HOUR)]);
    expect(sink.count('open')).toBe(1);
    const a = [...sink.alerts.values()][0]!;
    expect(a).toMatchObject({ key: `routine-inspection:s1:${last}`, at: last, dueAt: due7(last) });
    expect(a.evidence.lastInspection).toMatchObject({ at: iso(last), kind: 'routine', onRecord: true });
    expect(a.message).toContain('since the last inspection on record');
    expect(state.last?.id).toBe(`history:lastRoutineInspection:${iso(last)}`);
  });

  it('one older than 7 x 24 h gives a period already past due (overdue at once), only one', () => {
    const last = T0 - 30 * DAY;
    const { sink } = feed(withHistory(last), [tick(T0)]);
    const alerts = [...sink.alerts.values()];
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ at: last, dueAt: due7(last), status: 'open' });
    expect(alerts[0]!.dueAt!).toBeLessThan(T0);
  });

  it('history added to a site whose clock started at its first tick supersedes that period', () => {
    const started = feed(ctxOf({ kind: 'construction' }), [tick(T0)]);
    const last = T0 - 2 * DAY;
    const { sink } = feed(withHistory(last), [tick(T0 + HOUR), tick(T0 + 2 * HOUR)], started.state);
    const alerts = [...sink.alerts.values()];
    // The sink saw only the new inputs: the period that began at T0 is closed by key, at its start.
    expect(sink.effects[0]).toMatchObject({
      type: 'resolve',
      key: `routine-inspection:s1:${T0}`,
      at: T0,
      evidence: { superseded: true, onRecord: true, inspectedAt: iso(last) },
    });
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ at: last, dueAt: due7(last), status: 'open' });
  });

  it('a history older than the last inspection logged changes nothing; a newer logged one wins', () => {
    const logged = feed(ctxOf({ kind: 'construction' }), [tick(T0), insp(T0 + DAY, 'i1')]);
    const older = feed(withHistory(T0 - DAY), [tick(T0 + 2 * DAY)], logged.state).sink;
    expect(older.effects).toHaveLength(0);
    // A routine inspection logged after the one on record, dated later: met, on time.
    const { sink } = feed(withHistory(T0 - DAY), [tick(T0), insp(T0 + DAY, 'i2'), tick(T0 + 2 * DAY)]);
    const alerts = [...sink.alerts.values()];
    expect(alerts[0]).toMatchObject({ at: T0 - DAY, status: 'resolved', resolvedAt: T0 + DAY });
    expect(alerts[0]!.resolution).toMatchObject({ inspectionId: 'i2', onTime: true });
    expect(alerts[1]).toMatchObject({ at: T0 + DAY, dueAt: due7(T0 + DAY) });
  });

  it('an inactive site keeps its history as the last inspection and opens nothing', () => {
    const { sink, state } = feed(withHistory(T0 - DAY, { active: false }), [tick(T0)]);
    expect(sink.effects).toHaveLength(0);
    expect(state.last?.at).toBe(T0 - DAY);
  });
});

describe('routine-inspection: inspections logged late', () => {
  const ctx = ctxOf({ kind: 'construction' });

  it('one dated 2 days ago on a site whose clock started now: next due 5 days out', () => {
    const { sink } = feed(ctx, [tick(T0), insp(T0 - 2 * DAY, 'late')]);
    const [first, next] = [...sink.alerts.values()];
    expect(first).toMatchObject({ status: 'resolved', resolvedAt: T0 });
    expect(first!.resolution).toMatchObject({ superseded: true, inspectionId: 'late' });
    expect(next).toMatchObject({ at: T0 - 2 * DAY, dueAt: due7(T0 - 2 * DAY), status: 'open' });
  });

  it('one older than 7 x 24 h: the next period is past due at once', () => {
    const { sink } = feed(ctx, [tick(T0), insp(T0 - 9 * DAY, 'old')]);
    const next = [...sink.alerts.values()][1]!;
    expect(next).toMatchObject({ at: T0 - 9 * DAY, dueAt: due7(T0 - 9 * DAY), status: 'open' });
  });
});

describe('routine-inspection: the 7th day whole across a change of daylight saving time (America/New_York)', () => {
  it('November: an inspection at 10:00 EDT on October 29 is due by the end of November 5, EST', () => {
    // 2026-11-01 02:00 EDT the clocks go back: Oct 29 10:00 EDT = 14:00Z.
    const last = Date.UTC(2026, 9, 29, 14, 0);
    const { sink } = feed(withHistory(last), [tick(Date.UTC(2026, 9, 31, 12))]);
    const a = [...sink.alerts.values()][0]!;
    expect(a.dueAt).toBe(Date.parse('2026-11-06T00:00:00-05:00') - 1);
    expect(a.dueAt! - a.at).toBe(7 * DAY + 14 * HOUR + HOUR - 1);
    expect(formatLocal(a.dueAt!, 'America/New_York')).toBe('2026-11-05 23:59 EST');
    expect(a.message).toContain(formatLocal(a.dueAt!, 'America/New_York'));
    expect(a.message).toContain('by the end of the 7th day after October 29, 2026');
  });

  it('March: an inspection logged late across the spring change: due by the end of March 12, EDT', () => {
    // 2026-03-08 02:00 EST the clocks go forward: Mar 5 10:00 EST = 15:00Z; the clock started Mar 7.
    const started = Date.UTC(2026, 2, 7, 15);
    const late = Date.UTC(2026, 2, 5, 15);
    const { sink } = feed(ctxOf({ kind: 'construction' }), [tick(started), insp(late, 'late')]);
    const [first, next] = [...sink.alerts.values()];
    expect(first!.resolution).toMatchObject({ superseded: true });
    expect(next!.dueAt).toBe(Date.parse('2026-03-13T00:00:00-04:00') - 1);
    expect(formatLocal(next!.dueAt!, 'America/New_York')).toBe('2026-03-12 23:59 EDT');
  });
});
