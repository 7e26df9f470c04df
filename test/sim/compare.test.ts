import { describe, expect, it } from 'vitest';
import {
  type ApiAlert,
  compareAlerts,
  formatComparison,
  resolveExpectations,
} from '../../firmware-sim/src/compare.ts';

const T = Date.parse('2025-06-10T12:00:00Z');
const alert = (o: Partial<ApiAlert>): ApiAlert => ({
  id: o.id ?? 'a1',
  rule: 'storm-inspection',
  siteId: 'maple-ridge',
  deviceId: 'rg-1',
  status: 'open',
  dueAt: new Date(T + 50 * 3_600_000).toISOString(),
  ...o,
});

describe('compareAlerts', () => {
  const expected = resolveExpectations(
    {
      alerts: [
        {
          siteId: 'maple-ridge',
          rule: 'storm-inspection',
          deviceId: 'rg-1',
          count: 1,
          dueAt: '+50h',
          dueToleranceSeconds: 120,
          status: 'any',
        },
      ],
      noAlerts: [{ siteId: 'maple-ridge', rule: 'device-silent', status: 'active' }],
    },
    T,
  );

  it('accepts the expected alert with the right due time', () => {
    const c = compareAlerts(expected, [alert({})]);
    expect(c.ok).toBe(true);
    expect(c.met).toHaveLength(2);
    expect(formatComparison(c)).toMatch(/alerts match/);
  });

  it('reports a missing alert, a duplicate, and a wrong due time', () => {
    expect(compareAlerts(expected, []).problems[0]).toMatch(/expected 1, got 0/);
    expect(compareAlerts(expected, [alert({}), alert({ id: 'a2' })]).problems[0]).toMatch(
      /expected 1, got 2/,
    );
    const late = compareAlerts(expected, [alert({ dueAt: new Date(T + 51 * 3_600_000).toISOString() })]);
    expect(late.ok).toBe(false);
    expect(late.problems[0]).toMatch(/off by 60\.0 min/);
    expect(formatComparison(late)).toMatch(/DIFFER/);
  });

  it('tolerates a due time within the tolerance and ignores other sites and devices', () => {
    const c = compareAlerts(expected, [
      alert({ dueAt: new Date(T + 50 * 3_600_000 + 90_000).toISOString() }),
      alert({ id: 'x', siteId: 'elsewhere' }),
      alert({ id: 'y', deviceId: 'rg-2' }),
    ]);
    expect(c.problems).toEqual([]);
    const tooFar = compareAlerts(expected, [
      alert({ dueAt: new Date(T + 50 * 3_600_000 + 150_000).toISOString() }),
    ]);
    expect(tooFar.ok).toBe(false);
  });

  it('forbids active alerts of a rule but tolerates resolved ones, listing them as unmentioned', () => {
    const open = compareAlerts(expected, [
      alert({}),
      alert({ id: 's', rule: 'device-silent', status: 'open' }),
    ]);
    expect(open.ok).toBe(false);
    expect(open.problems[0]).toMatch(/device-silent \(active\).*expected none/);
    const resolved = compareAlerts(expected, [
      alert({}),
      alert({ id: 's', rule: 'device-silent', status: 'resolved' }),
      alert({ id: 'r', rule: 'routine-inspection', deviceId: null }),
    ]);
    expect(resolved.ok).toBe(true);
    expect(resolved.unmentioned.map((a) => a.id)).toEqual(['r']);
  });

  it('matches a count of zero and a status filter', () => {
    const zero = resolveExpectations(
      {
        alerts: [
          { siteId: 's', rule: 'equipment-remedy', count: 0, dueToleranceSeconds: 120, status: 'open' },
        ],
        noAlerts: [],
      },
      T,
    );
    expect(
      compareAlerts(zero, [alert({ siteId: 's', rule: 'equipment-remedy', status: 'resolved' })]).ok,
    ).toBe(true);
    expect(compareAlerts(zero, [alert({ siteId: 's', rule: 'equipment-remedy', status: 'open' })]).ok).toBe(
      false,
    );
  });
});
