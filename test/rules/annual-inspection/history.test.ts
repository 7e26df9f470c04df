/**
 * The annual clock from a site's history on record: the last annual inspection meets its year's duty, and
 * this year's letter, when it went out on another day, sets the year's deadline (local midnight, across a
 * change of daylight saving time).
 */
import { describe, expect, it } from 'vitest';
import { annualEvaluator, annualSchedule } from '../../../gateway/src/rules/annual-inspection/evaluator.ts';
import type { RuleInput } from '../../../gateway/src/rules/types.ts';
import { ctxOf, DAY, run, type SiteContext, tick } from '../helpers.ts';

const iso = (t: number) => new Date(t).toISOString();
const site = (history: Record<string, string> = {}, extra: Record<string, unknown> = {}): SiteContext =>
  ctxOf({ kind: 'alternative-system', history, ...extra }, 'America/New_York');
const feed = (c: SiteContext, inputs: RuleInput[], state?: ReturnType<typeof annualEvaluator.init>) =>
  run(annualEvaluator, c, inputs, { checkPurity: true, ...(state ? { state } : {}) });
const DEC_1 = Date.UTC(2026, 11, 1, 17); // 2026-12-01 12:00 EST
const DUE_2026 = Date.UTC(2026, 7, 1, 4) - 1; // the end of 2026-07-31 EDT: the 60th day whole

describe('annual-inspection: the history on record', () => {
  it('a system added in December with no history: the year is overdue (122 days)', () => {
    const a = [...feed(site(), [tick(DEC_1)]).sink.alerts.values()][0]!;
    expect(a).toMatchObject({ key: 'annual-inspection:s1:2026', dueAt: DUE_2026, status: 'open' });
    expect(Math.floor((DEC_1 - a.dueAt!) / DAY)).toBe(122);
  });

  it("added in December with this year's annual inspection on record: met, not overdue", () => {
    const july = Date.UTC(2026, 6, 10, 14);
    const { sink, state } = feed(site({ lastAnnualInspection: iso(july) }), [tick(DEC_1), tick(DEC_1 + DAY)]);
    const alerts = [...sink.alerts.values()];
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ status: 'resolved', resolvedAt: july });
    expect(alerts[0]!.resolution).toMatchObject({ year: 2026, onTime: true, onRecord: true });
    expect(state.unused).toEqual([]);
  });

  it("added in December with this year's letter of December 1: due 60 days later, not overdue", () => {
    const c = site({ annualLetter: '2026-12-01T09:00:00-05:00' });
    const a = [...feed(c, [tick(DEC_1)]).sink.alerts.values()][0]!;
    // Sept 1 falls before the letter: the 60 days count alone, the 60th (January 30) whole.
    expect(iso(a.at)).toBe('2026-12-01T05:00:00.000Z');
    expect(iso(a.dueAt!)).toBe('2027-01-31T04:59:59.999Z');
    expect(a.dueAt!).toBeGreaterThan(DEC_1);
    expect(a.evidence).toMatchObject({ letterOnRecord: true });
    expect(a.message).toContain('went out');
  });

  it('a letter on record across the November change: local midnight EDT to local midnight EST', () => {
    const s = annualSchedule(2026, site({ annualLetter: '2026-10-15T12:00:00-04:00' }));
    expect(iso(s.letterAt)).toBe('2026-10-15T04:00:00.000Z');
    // The 60th day is December 14 (EST), whole: due until its last instant.
    expect(iso(s.dueAt)).toBe('2026-12-15T04:59:59.999Z');
    expect(s.dueAt - s.letterAt).toBe(61 * DAY + 3_600_000 - 1);
    // A letter of another year leaves this year's schedule as configured.
    expect(iso(annualSchedule(2027, site({ annualLetter: '2026-10-15T12:00:00-04:00' })).dueAt)).toBe(
      '2027-08-01T03:59:59.999Z',
    );
  });

  it("a letter recorded later moves the open year's deadline", () => {
    const opened = feed(site(), [tick(Date.UTC(2026, 5, 2, 12))]);
    const { sink } = feed(
      site({ annualLetter: '2026-07-15T10:00:00-04:00' }),
      [tick(Date.UTC(2026, 5, 3))],
      opened.state,
    );
    expect(sink.effects).toHaveLength(1);
    expect(sink.effects[0]).toMatchObject({
      type: 'open',
      key: 'annual-inspection:s1:2026',
      dueAt: Date.UTC(2026, 8, 1, 4) - 1, // the earlier: prior to Sept 1, before July 15 + 60 days
    });
  });

  it("in January, last year's December letter on record opens last year's duty, due this January", () => {
    const jan = Date.UTC(2027, 0, 5, 17);
    const { sink } = feed(site({ annualLetter: '2026-12-01T09:00:00-05:00' }), [tick(jan)]);
    const a = sink.alerts.get('annual-inspection:s1:2026');
    expect(a).toMatchObject({ status: 'open' });
    expect(iso(a!.dueAt!)).toBe('2027-01-31T04:59:59.999Z');
    // Without a letter on record, January opens nothing (no earlier year, this year's letter is in June).
    expect(feed(site(), [tick(jan)]).sink.alerts.size).toBe(0);
  });
});
