import { describe, expect, it } from 'vitest';
import { annualEvaluator, annualSchedule } from '../../../gateway/src/rules/annual-inspection/evaluator.ts';
import type { RuleInput } from '../../../gateway/src/rules/types.ts';
import { ctxOf, DAY, HOUR, run, tick } from '../helpers.ts';

const ctx = ctxOf({ kind: 'alternative-system' }, 'America/New_York');
// 2026-06-01 00:00 EDT (UTC-4) = 04:00Z; the 60th day after it, July 31, ends at 2026-08-01 04:00Z.
const LETTER_2026 = Date.UTC(2026, 5, 1, 4, 0, 0);
const DUE_2026 = Date.UTC(2026, 7, 1, 4, 0, 0) - 1;

const annual = (at: number, id: string, kind = 'annual'): RuleInput => ({
  type: 'inspection',
  siteId: 's1',
  at,
  kind,
  inspector: 'P.E. Smith',
  id,
});

function feed(inputs: RuleInput[], c = ctx) {
  return run(annualEvaluator, c, inputs, { checkPurity: true });
}

describe('annual-inspection', () => {
  it('2026 in America/New_York: letter June 1, due July 31 (the earlier of June 1 + 60 d and Sept 1)', () => {
    const s = annualSchedule(2026, ctx);
    expect(new Date(s.letterAt).toISOString()).toBe('2026-06-01T04:00:00.000Z');
    expect(new Date(s.withinAt).toISOString()).toBe('2026-08-01T04:00:00.000Z');
    expect(new Date(s.notAfterAt).toISOString()).toBe('2026-09-01T04:00:00.000Z');
    expect(s.dueAt).toBe(DUE_2026);
    const later = annualSchedule(
      2026,
      ctxOf({ kind: 'alternative-system', annualInspection: { rule: 'later' } }),
    );
    expect(new Date(later.dueAt).toISOString()).toBe('2026-09-01T03:59:59.999Z');
    // A letter on July 15: within 60 days is Sept 13, so "before Sept 1" is the earlier.
    const july = annualSchedule(
      2026,
      ctxOf({ kind: 'alternative-system', annualInspection: { letterMonth: 7, letterDay: 15 } }),
    );
    expect(new Date(july.dueAt).toISOString()).toBe('2026-09-01T03:59:59.999Z');
    // Another zone: midnight local there.
    const la = annualSchedule(2026, { ...ctx, timezone: 'America/Los_Angeles' });
    expect(new Date(la.letterAt).toISOString()).toBe('2026-06-01T07:00:00.000Z');
  });

  it('opens on the first tick at or after the letter, keyed by year, not before', () => {
    expect(feed([tick(LETTER_2026 - 1)]).sink.alerts.size).toBe(0);
    const { sink } = feed([tick(LETTER_2026 - HOUR), tick(LETTER_2026), tick(LETTER_2026 + DAY)]);
    expect(sink.count('open')).toBe(1);
    expect([...sink.alerts.values()][0]).toMatchObject({
      key: 'annual-inspection:s1:2026',
      at: LETTER_2026,
      dueAt: DUE_2026,
    });
  });

  it('an annual inspection resolves it, on time or late; other kinds do not', () => {
    const ok = feed([
      tick(LETTER_2026 + HOUR),
      annual(LETTER_2026 + 20 * DAY, 'a1', 'routine'),
      annual(LETTER_2026 + 30 * DAY, 'a2'),
    ]).sink;
    const a = [...ok.alerts.values()][0]!;
    expect(a.status).toBe('resolved');
    expect(a.resolution).toMatchObject({ inspectionId: 'a2', onTime: true, year: 2026 });
    const late = feed([tick(LETTER_2026 + HOUR), annual(DUE_2026 + HOUR, 'a3')]).sink;
    expect([...late.alerts.values()][0]!.resolution).toMatchObject({ onTime: false });
  });

  it('an inspection before the letter in the same year closes that year at once; the next year opens again', () => {
    const may = Date.UTC(2026, 4, 10, 15);
    const { sink } = feed([annual(may, 'early'), tick(LETTER_2026 + HOUR), tick(Date.UTC(2027, 5, 1, 5))]);
    const alerts = [...sink.alerts.values()];
    expect(alerts.map((a) => a.key)).toEqual(['annual-inspection:s1:2026', 'annual-inspection:s1:2027']);
    expect(alerts[0]).toMatchObject({ status: 'resolved' });
    expect(alerts[1]).toMatchObject({ status: 'open' });
  });
});
