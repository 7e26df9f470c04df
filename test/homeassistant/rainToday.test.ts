import { describe, expect, it } from 'vitest';
import type { DeviceConfig } from '../../gateway/src/config/schema.ts';
import { RainToday } from '../../gateway/src/homeassistant/rainToday.ts';
import type { Reading } from '../../shared/src/telemetry.ts';

const TZ = 'America/New_York';
// Local midnight of 2026-06-15 in New York (EDT, UTC-4).
const MIDNIGHT = Date.parse('2026-06-15T04:00:00Z');
const gauge: DeviceConfig = {
  id: 'rg-1',
  kind: 'rain-gauge',
  inchesPerTip: 0.01,
  clientIds: [],
} as DeviceConfig;
const r = (ts: number, values: Reading['values']): Reading => ({
  siteId: 's',
  deviceId: 'rg-1',
  deviceKind: 'rain-gauge',
  ts,
  receivedAt: ts,
  transport: 'mqtt',
  values,
});

/** A store of readings, as the stage reads it: a range by source time and the counter before a time. */
function store(readings: Reading[]) {
  return {
    iterate: function* (o: { from: number; to: number }) {
      for (const x of [...readings].sort((a, b) => a.ts - b.ts)) if (x.ts >= o.from && x.ts <= o.to) yield x;
    },
    counterBefore: (_s: string, _d: string, ts: number) => {
      const before = readings
        .filter((x) => x.ts < ts && x.values.rainTips !== undefined)
        .sort((a, b) => b.ts - a.ts);
      return before[0] ? { ts: before[0].ts, tips: before[0].values.rainTips! } : undefined;
    },
  } as never;
}

describe('rain today', () => {
  it('counts from the last counter reading before local midnight, a reboot as the tips since it', () => {
    const readings = [
      r(MIDNIGHT - 3_600_000, { rainTips: 500 }), // yesterday: the baseline
      r(MIDNIGHT + 3_600_000, { rainTips: 520 }), // +20
      r(MIDNIGHT + 7_200_000, { rainTips: 5 }), // a reboot: +5
    ];
    const rain = new RainToday(store(readings));
    expect(rain.inches('s', gauge, TZ, MIDNIGHT + 8_000_000)).toBe(0.25);
    // Kept up to date from the readings stored after.
    const next = r(MIDNIGHT + 9_000_000, { rainTips: 15 });
    readings.push(next);
    rain.offer(next, gauge);
    expect(rain.inches('s', gauge, TZ, MIDNIGHT + 9_500_000)).toBe(0.35);
    // A late reading is read from the store again: between 5 and 15 it changes nothing in total.
    const late = r(MIDNIGHT + 8_500_000, { rainTips: 10 });
    readings.push(late);
    rain.offer(late, gauge);
    expect(rain.inches('s', gauge, TZ, MIDNIGHT + 9_600_000)).toBe(0.35);
    // The next day starts at zero (from the last counter, 15).
    expect(rain.inches('s', gauge, TZ, MIDNIGHT + 86_400_000 + 60_000)).toBe(0);
  });

  it('adds the rain of a gauge that reports inches', () => {
    const readings = [r(MIDNIGHT + 60_000, { rainIn: 0.1 }), r(MIDNIGHT + 120_000, { rainIn: 0.05 })];
    expect(new RainToday(store(readings)).inches('s', gauge, TZ, MIDNIGHT + 200_000)).toBe(0.15);
  });
});
