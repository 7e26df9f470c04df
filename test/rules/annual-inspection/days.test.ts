/**
 * The annual deadline counted as the law counts days (shared/src/days.ts): the 60th day after the town's
 * letter is whole, "prior to September 1st" ends with August 31, in the site's time zone, across a change
 * of daylight saving time; the engineer's report meets it by its submittal to the town, the work's date
 * shown beside it.
 */
import { describe, expect, it } from 'vitest';
import {
  ANNUAL_STATE_VERSION,
  annualEvaluator,
  annualSchedule,
  upgradeAnnualState,
} from '../../../gateway/src/rules/annual-inspection/evaluator.ts';
import { annualInspection } from '../../../gateway/src/rules/annual-inspection/index.ts';
import { reportReading } from '../../../gateway/src/rules/annual-inspection/reading.ts';
import type { RuleInput } from '../../../gateway/src/rules/types.ts';
import { ctxOf, HOUR, run, type SiteContext, tick } from '../helpers.ts';

const NY = 'America/New_York';
const at = (s: string) => Date.parse(s);
const ctx = ctxOf({ kind: 'alternative-system' }, NY);
const LETTER = at('2026-06-01T00:00:00-04:00');

/** An annual inspection made at `work`, received by the gateway (submitted to the town) at `received`. */
const annual = (work: number, received: number, id = 'a1'): RuleInput => ({
  type: 'inspection',
  siteId: 's1',
  at: work,
  receivedAt: received,
  kind: 'annual',
  inspector: 'P.E. Smith',
  id,
});

function resolved(inputs: RuleInput[], c: SiteContext = ctx) {
  const { sink } = run(annualEvaluator, c, [tick(LETTER + HOUR), ...inputs], { checkPurity: true });
  const a = sink.alerts.get('annual-inspection:s1:2026')!;
  expect(a.status).toBe('resolved');
  return a;
}

describe('annual-inspection: the 60th day whole, the submittal the measure', () => {
  it('a June 1 letter: submitted on July 31 at noon and at 23:59 local is on time, on August 1 at 00:00 late', () => {
    const work = at('2026-07-20T10:00:00-04:00');
    for (const [received, onTime] of [
      ['2026-07-31T12:00:00-04:00', true],
      ['2026-07-31T23:59:00-04:00', true],
      ['2026-07-31T23:59:59.999-04:00', true],
      ['2026-08-01T00:00:00-04:00', false],
    ] as const) {
      const a = resolved([annual(work, at(received))]);
      expect(a.resolution, received).toMatchObject({ onTime });
      // The engine compares the resolution's time with the due time, inclusive: the same outcome.
      expect(a.resolvedAt! <= a.dueAt!, received).toBe(onTime);
    }
  });

  it('done on time but submitted late: late, judged by the submittal, the work date beside it', () => {
    const work = at('2026-07-25T09:00:00-04:00');
    const received = at('2026-08-03T15:00:00-04:00');
    const { sink } = run(annualEvaluator, ctx, [tick(LETTER + HOUR), annual(work, received)]);
    const resolve = sink.effects.find((e) => e.type === 'resolve');
    expect(resolve?.type === 'resolve' && resolve.message).toContain('inspection made 2026-07-25 09:00 EDT');
    const a = sink.alerts.get('annual-inspection:s1:2026')!;
    expect(a.resolvedAt).toBe(received);
    expect(a.resolution).toMatchObject({
      onTime: false,
      inspectedAt: new Date(work).toISOString(),
      submittedAt: new Date(received).toISOString(),
    });
  });

  it('done before the letter and submitted in time: on time, the same year met', () => {
    const work = at('2026-05-20T09:00:00-04:00');
    const received = at('2026-07-02T08:00:00-04:00');
    const a = resolved([annual(work, received)]);
    expect(a.resolution).toMatchObject({ onTime: true, inspectedAt: new Date(work).toISOString() });
  });

  it('an inspection with no submittal time (a record of the site) is measured by its date', () => {
    const work = at('2026-07-31T18:00:00-04:00');
    const a = resolved([
      { type: 'inspection', siteId: 's1', at: work, kind: 'annual', inspector: 'x', id: 'h' },
    ]);
    expect(a.resolvedAt).toBe(work);
    expect(a.resolution).toMatchObject({ onTime: true });
  });

  it('"prior to September 1st" read as the later: August 31 is whole, September 1 at 00:00 is late', () => {
    const later = ctxOf({ kind: 'alternative-system', annualInspection: { rule: 'later' } }, NY);
    const s = annualSchedule(2026, later);
    expect(s.dueAt).toBe(at('2026-09-01T00:00:00-04:00') - 1);
    const work = at('2026-08-30T09:00:00-04:00');
    expect(resolved([annual(work, at('2026-08-31T23:30:00-04:00'))], later).resolution).toMatchObject({
      onTime: true,
    });
    expect(resolved([annual(work, at('2026-09-01T00:00:00-04:00'))], later).resolution).toMatchObject({
      onTime: false,
    });
  });

  it('a letter across the spring change: 60 days of February 20 end with April 21, EDT', () => {
    const c = ctxOf(
      { kind: 'alternative-system', history: { annualLetter: '2026-02-20T11:00:00-05:00' } },
      NY,
    );
    const s = annualSchedule(2026, c);
    expect(s.letterAt).toBe(at('2026-02-20T00:00:00-05:00'));
    expect(s.dueAt).toBe(at('2026-04-22T00:00:00-04:00') - 1);
    // The same letter in another zone: its own local midnight.
    const la = annualSchedule(2026, { ...c, timezone: 'America/Los_Angeles' });
    expect(la.dueAt).toBe(at('2026-04-22T00:00:00-07:00') - 1);
  });

  it('refuses a fraction of a day in the configuration', () => {
    expect(() => ctxOf({ kind: 'alternative-system', annualInspection: { withinDays: 60.5 } })).toThrow();
  });

  it("states the town's reading: the line the compliance report prints", () => {
    expect(reportReading(ctx.site.annualInspection)).toMatch(
      /^Deadline read as: the earlier of 60 days after the town's letter and August 31 \(the town's choice/,
    );
    const later = ctxOf({
      kind: 'alternative-system',
      annualInspection: { rule: 'later', notAfter: '10-15' },
    });
    expect(reportReading(later.site.annualInspection)).toContain(
      "the later of 60 days after the town's letter and October 14",
    );
    expect(annualInspection.deadlineReading?.(ctx.site)).toBe(reportReading(ctx.site.annualInspection));
    expect(annualInspection.duty.measure).toBe('submittal');
  });

  it('a state of version 1 is upgraded; the open year then moves to the whole 60th day at the next tick', () => {
    const v1 = {
      v: 1,
      siteId: 's1',
      years: {
        '2026': {
          key: 'annual-inspection:s1:2026',
          letterAt: LETTER,
          dueAt: at('2026-07-31T00:00:00-04:00'),
          status: 'open',
        },
      },
      unused: [],
      seen: [],
    };
    const state = upgradeAnnualState(v1, 1);
    expect(state.v).toBe(ANNUAL_STATE_VERSION);
    expect(annualInspection.state.version).toBe(ANNUAL_STATE_VERSION);
    const { sink } = run(annualEvaluator, ctx, [tick(at('2026-07-10T12:00:00-04:00'))], { state });
    expect(sink.effects).toHaveLength(1);
    expect(sink.effects[0]).toMatchObject({ type: 'open', dueAt: at('2026-08-01T00:00:00-04:00') - 1 });
    expect(() => upgradeAnnualState(v1, 3)).toThrow();
  });
});
