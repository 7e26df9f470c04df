/**
 * The charts' words and data, without a browser: the summary a screen reader reads under a chart, in the
 * site's zone, and how a panel's buckets become uPlot's rows (a gap breaks a line, a quiet bucket does not,
 * a storm's running rain breaks outside its storm, rain per hour sits on its hour).
 */
import { describe, expect, it } from 'vitest';
import { alignedData } from '../../dashboard/src/charts/data.ts';
import { summary, when } from '../../dashboard/src/charts/words.ts';
import type { ChartPanel } from '../../shared/src/api/charts.ts';

const TZ = 'America/New_York';
const MIN = 60_000;
const HOUR = 60 * MIN;
const iso = (s: string) => new Date(s).toISOString();

function rainPanel(): ChartPanel {
  const start = Date.parse('2026-11-30T06:00:00-05:00');
  return {
    id: 'rg-1/rain',
    deviceId: 'rg-1',
    title: 'Rain at rg-1',
    start: new Date(start).toISOString(),
    bucketMs: 15 * MIN,
    count: 8,
    axes: [{ label: 'Rain (in)', unit: 'in' }],
    series: [
      {
        measure: 'rain',
        label: 'Rain per hour',
        unit: 'in',
        axis: 0,
        style: 'bars',
        bucket: 'sum',
        bucketMs: HOUR,
        values: [0.12, 0.5],
      },
      {
        measure: 'stormRain',
        label: 'Storm rain so far',
        unit: 'in',
        axis: 0,
        style: 'line',
        bucket: 'running',
        bucketMs: 15 * MIN,
        values: [null, 0.1, 0.12, 0.12, 0.3, 0.62, null, null],
      },
      {
        measure: 'batteryV',
        label: 'Battery',
        unit: 'V',
        axis: 0,
        style: 'line',
        bucket: 'last',
        bucketMs: 15 * MIN,
        values: [3.6, null, 3.59, null, null, null, 3.58, null],
      },
    ],
    lines: [{ measure: 'stormRain', value: 0.5, label: 'Storm threshold 0.50 in' }],
    bands: [
      {
        kind: 'storm',
        from: iso('2026-11-30T06:53:00-05:00'),
        to: iso('2026-12-01T05:17:00-05:00'),
        label: 'Storm',
        detail: '0.62 in',
      },
      {
        kind: 'gap',
        from: iso('2026-11-30T06:50:00-05:00'),
        to: iso('2026-11-30T07:40:00-05:00'),
        label: 'No data (no evidence)',
      },
    ],
    markers: [{ measure: 'stormRain', at: iso('2026-11-30T19:12:00-05:00'), label: 'Threshold crossed' }],
  };
}

describe("a chart's words", () => {
  it('read the threshold, the storm and its crossing in the site’s zone', () => {
    const text = summary(rainPanel(), TZ);
    expect(text).toContain('Storm threshold 0.50 in.');
    expect(text).toContain('Storm Nov 30 6:53 AM to Dec 1 5:17 AM, 0.62 in, threshold crossed at 7:12 PM.');
    expect(text).toContain('Rain in this period: 0.62 in.');
    expect(text).toContain('Battery: 3.58 V at Nov 30 7:30 AM, highest 3.60 V.');
    expect(text).toContain('No data (a gap in the evidence) Nov 30 6:50 AM to 7:40 AM.');
    // The same instant in another zone reads otherwise: the words are the site's.
    expect(when(Date.parse('2026-11-30T19:12:00-05:00'), 'America/Chicago')).toBe('Nov 30 6:12 PM');
  });

  it('turn buckets into rows: gaps break lines, quiet buckets do not, rain sits on its hour', () => {
    const [xs, bars, running, battery] = alignedData(rainPanel());
    expect(xs).toHaveLength(8);
    expect(xs[1]! - xs[0]!).toBe(15 * MIN);
    // Rain per hour: at the first quarter of each hour, nothing between (uPlot sizes the bars by it).
    expect(bars).toEqual([0.12, undefined, undefined, undefined, 0.5, undefined, undefined, undefined]);
    // The storm's running rain breaks outside the storm.
    expect(running).toEqual([null, 0.1, 0.12, 0.12, 0.3, 0.62, null, null]);
    // A bucket without a battery reading is drawn through (6:15, 7:45) unless it meets the gap (6:50 to
    // 7:40: the buckets of 6:45, 7:00 and 7:15).
    expect(battery).toEqual([3.6, undefined, 3.59, null, null, null, 3.58, undefined]);
  });

  it('say when the device was not yet installed or retired, no gap, and break the line there', () => {
    const p = rainPanel();
    p.bands = [
      {
        kind: 'absent',
        from: iso('2026-11-30T06:00:00-05:00'),
        to: iso('2026-11-30T06:20:00-05:00'),
        label: 'Not yet installed',
      },
      {
        kind: 'absent',
        from: iso('2026-11-30T07:40:00-05:00'),
        to: iso('2026-11-30T08:00:00-05:00'),
        label: 'Retired',
      },
    ];
    const text = summary(p, TZ);
    expect(text).toContain('Not yet installed Nov 30 6:00 AM to 6:20 AM.');
    expect(text).toContain('Retired Nov 30 7:40 AM to 8:00 AM.');
    expect(text).not.toMatch(/gap/);
    const [, , , battery] = alignedData(p);
    // 6:00 holds a reading; 6:15 (not yet installed) breaks, 7:45 (retired) breaks.
    expect(battery).toEqual([3.6, null, 3.59, undefined, undefined, undefined, 3.58, null]);
  });
});
