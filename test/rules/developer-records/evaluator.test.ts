/**
 * The developer-records duties (town law 001): no contractor's certification or SWPPP on file while the
 * site is active, the one-year inspection after final acceptance (due at the end of the same local date a
 * year on, February 29 included), and a milestone passed with no 48-hour notice.
 */
import { describe, expect, it } from 'vitest';
import {
  developerRecordsEvaluator,
  oneYearAfter,
} from '../../../gateway/src/rules/developer-records/evaluator.ts';
import type { RuleInput } from '../../../gateway/src/rules/types.ts';
import { ctxOf, DAY, HOUR, run, tick } from '../helpers.ts';

const TZ = 'America/New_York';
const active = ctxOf({ kind: 'construction', active: true }, TZ);
const idle = ctxOf({ kind: 'construction', active: false }, TZ);
const T = Date.parse('2026-05-04T13:00:00Z');

type Kind = Extract<RuleInput, { type: 'site-record' }>['kind'];
const rec = (kind: Kind, at: number, extra: Record<string, unknown> = {}): RuleInput => ({
  type: 'site-record',
  kind,
  siteId: 's1',
  id: `${kind}-${at}`,
  at,
  by: 'Dana Developer',
  ...extra,
});
const feed = (inputs: RuleInput[], c = active) =>
  run(developerRecordsEvaluator, c, inputs, { checkPurity: true });
const byRule = (alerts: ReturnType<typeof feed>['sink']['alerts'], rule: string) =>
  [...alerts.values()].filter((a) => a.rule === rule);

describe('developer-records: certification and SWPPP on file', () => {
  it('an active site without them has both duties, due at once; the records resolve them', () => {
    const { sink } = feed([tick(T), tick(T + HOUR), rec('certification', T + 2 * HOUR), tick(T + 3 * HOUR)]);
    const [cert] = byRule(sink.alerts, 'contractor-certification');
    const [swppp] = byRule(sink.alerts, 'swppp-on-site');
    expect(cert).toMatchObject({ status: 'resolved', at: T, dueAt: T, resolvedAt: T + 2 * HOUR });
    expect(cert!.message).toContain("No contractor's certification on file");
    expect(swppp).toMatchObject({ status: 'open', at: T, dueAt: T });
    expect(byRule(sink.alerts, 'contractor-certification')).toHaveLength(1);
  });

  it('a certification signed before the duty opened resolves it at its opening (on time)', () => {
    const { sink } = feed([tick(T), rec('certification', T - DAY)]);
    const [cert] = byRule(sink.alerts, 'contractor-certification');
    expect(cert).toMatchObject({ status: 'resolved', resolvedAt: T });
  });

  it('records on file before work starts: no duty; an inactive site has none either', () => {
    const on = feed([rec('certification', T - DAY), rec('swppp', T - DAY), tick(T), tick(T + DAY)]);
    expect(on.sink.alerts.size).toBe(0);
    const off = feed([tick(T), tick(T + DAY)], idle);
    expect(off.sink.alerts.size).toBe(0);
  });
});

describe('developer-records: final stabilization', () => {
  it('ends the open certification and SWPPP duties, not met, and none opens after it', () => {
    const { sink } = feed([
      tick(T),
      rec('certification', T + HOUR),
      rec('final-stabilization', T + 30 * DAY),
      tick(T + 31 * DAY),
      tick(T + 60 * DAY),
    ]);
    const [cert] = byRule(sink.alerts, 'contractor-certification');
    const [swppp] = byRule(sink.alerts, 'swppp-on-site');
    expect(cert).toMatchObject({ status: 'resolved', resolvedAt: T + HOUR });
    // The SWPPP duty ends at the stabilization, past its due time: not met on time.
    expect(swppp).toMatchObject({ status: 'resolved', dueAt: T, resolvedAt: T + 30 * DAY });
    expect(swppp!.resolution).toMatchObject({ stabilizedAt: new Date(T + 30 * DAY).toISOString() });
    expect(swppp!.resolution?.superseded).toBeUndefined();
    expect(sink.alerts.size).toBe(2);
  });

  it('a site stabilized before work was seen opens no duty; a second stabilization changes nothing', () => {
    const before = feed([rec('final-stabilization', T - DAY), tick(T), tick(T + DAY)]);
    expect(before.sink.alerts.size).toBe(0);
    const twice = feed([
      rec('final-stabilization', T - DAY),
      rec('final-stabilization', T + 2 * DAY),
      tick(T + 3 * DAY),
    ]);
    expect(twice.state.stabilizedAt).toBe(T - DAY);
  });

  it('dated before a duty opened (the site was stabilized already), it supersedes the duty', () => {
    const { sink } = feed([tick(T), rec('final-stabilization', T - DAY)]);
    const [swppp] = byRule(sink.alerts, 'swppp-on-site');
    expect(swppp).toMatchObject({ status: 'resolved', resolvedAt: T });
    expect(swppp!.resolution).toMatchObject({ superseded: true });
  });
});

describe('developer-records: the one-year inspection', () => {
  it('is due at the end of the same local date a year after final acceptance', () => {
    // 2026-06-10 15:00 EDT; a year on: the end of 2027-06-10 local = 2027-06-11 04:00Z.
    const accepted = Date.parse('2026-06-10T19:00:00Z');
    const { sink } = feed([rec('final-acceptance', accepted)]);
    const [a] = byRule(sink.alerts, 'acceptance-inspection');
    expect(new Date(a!.dueAt!).toISOString()).toBe('2027-06-11T03:59:59.999Z');
    // Late in the evening local time, the UTC date is the next day: the local date counts.
    expect(new Date(oneYearAfter(Date.parse('2026-06-11T03:30:00Z'), TZ)).toISOString()).toBe(
      '2027-06-11T03:59:59.999Z',
    );
    expect(new Date(oneYearAfter(Date.parse('2028-02-29T17:00:00Z'), TZ)).toISOString()).toBe(
      '2029-03-01T04:59:59.999Z',
    );
  });

  it("the inspection's record resolves it; one dated before the acceptance does not", () => {
    const accepted = Date.parse('2026-06-10T19:00:00Z');
    const early = feed([rec('final-acceptance', accepted), rec('one-year-inspection', accepted - DAY)]);
    expect(byRule(early.sink.alerts, 'acceptance-inspection')[0]!.status).toBe('open');
    const done = feed([
      rec('final-acceptance', accepted),
      rec('one-year-inspection', accepted + 366 * DAY, { acceptable: false }),
    ]);
    const [a] = byRule(done.sink.alerts, 'acceptance-inspection');
    expect(a).toMatchObject({ status: 'resolved', resolvedAt: accepted + 366 * DAY });
    expect(a!.resolution).toMatchObject({ acceptable: false });
  });
});

describe('developer-records: milestones without notice', () => {
  const expected = Date.parse('2026-05-20T12:00:00Z');
  const ms = { milestone: 'rough-grading-complete' };

  it('a milestone whose expected time passed with no notice is flagged, past due 48 h before it', () => {
    const { sink, state } = feed([
      rec('certification', T),
      rec('swppp', T),
      rec('expected-milestone', expected, ms),
      tick(expected - 1),
      tick(expected),
    ]);
    const [a] = byRule(sink.alerts, 'milestone-notice');
    expect(a).toMatchObject({ status: 'open', at: expected, dueAt: expected - 48 * HOUR });
    expect(a!.message).toContain('Completion of rough grading');
    // A late notice resolves it.
    const after = run(developerRecordsEvaluator, active, [rec('notice', expected + HOUR, ms)], {
      state,
      sink,
    });
    expect(byRule(after.sink.alerts, 'milestone-notice')[0]).toMatchObject({
      status: 'resolved',
      resolvedAt: expected + HOUR,
    });
  });

  it('a notice on file, or a date moved later, flags nothing; a tick asks to wake at the expected time', () => {
    const noticed = feed([
      rec('certification', T),
      rec('swppp', T),
      rec('notice', T, ms),
      rec('expected-milestone', expected, ms),
      tick(expected + DAY),
    ]);
    expect(byRule(noticed.sink.alerts, 'milestone-notice')).toHaveLength(0);
    const moved = feed([
      rec('certification', T),
      rec('swppp', T),
      rec('expected-milestone', expected, ms),
      rec('expected-milestone', expected + 7 * DAY, ms),
      tick(expected + DAY),
    ]);
    expect(byRule(moved.sink.alerts, 'milestone-notice')).toHaveLength(0);
    const s = developerRecordsEvaluator.evaluate(moved.state, tick(expected + DAY), active);
    expect(s.wakeAt).toBe(expected + 7 * DAY);
  });
});
