import { describe, expect, it } from 'vitest';
import { presets } from '../../dashboard/src/pages/site/reports.ts';

const byId = (today: { year: number; month: number; day: number }) =>
  Object.fromEntries(presets(today).map((p) => [p.id, p.period]));

describe('the report period presets', () => {
  it('counts whole local days up to today', () => {
    const p = byId({ year: 2026, month: 3, day: 15 });
    expect(p.last30).toEqual({ from: '2026-02-14', to: '2026-03-15' });
    expect(p.thisMonth).toEqual({ from: '2026-03-01', to: '2026-03-15' });
    expect(p.lastMonth).toEqual({ from: '2026-02-01', to: '2026-02-28' });
    expect(p.thisYear).toEqual({ from: '2026-01-01', to: '2026-03-15' });
    expect(p.lastYear).toEqual({ from: '2025-01-01', to: '2025-12-31' });
  });

  it('crosses the new year and leap days', () => {
    const p = byId({ year: 2024, month: 1, day: 10 });
    expect(p.lastMonth).toEqual({ from: '2023-12-01', to: '2023-12-31' });
    expect(p.last30).toEqual({ from: '2023-12-12', to: '2024-01-10' });
    expect(byId({ year: 2024, month: 3, day: 1 }).lastMonth).toEqual({
      from: '2024-02-01',
      to: '2024-02-29',
    });
  });
});
