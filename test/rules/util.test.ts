import { describe, expect, it } from 'vitest';
import { formatLocal } from '../../gateway/src/rules/util.ts';

/** The label straight from Intl, without any of formatLocal's caches. */
function reference(ms: number, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'short',
  }).formatToParts(new Date(ms));
  const get = (t: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === t)?.value ?? '';
  const zone = timeZone === 'UTC' ? 'UTC' : get('timeZoneName');
  return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')} ${zone}`;
}

describe('formatLocal', () => {
  it('names the zone as it is at that moment, across daylight-saving changes', () => {
    const ny = 'America/New_York';
    expect(formatLocal(Date.UTC(2026, 6, 31, 4, 0), ny)).toBe('2026-07-31 00:00 EDT');
    expect(formatLocal(Date.UTC(2026, 0, 15, 17, 30), ny)).toBe('2026-01-15 12:30 EST');
    // 2026-03-08 02:00 EST -> 03:00 EDT; 2026-11-01 02:00 EDT -> 01:00 EST (01:xx happens twice).
    expect(formatLocal(Date.UTC(2026, 2, 8, 6, 59), ny)).toBe('2026-03-08 01:59 EST');
    expect(formatLocal(Date.UTC(2026, 2, 8, 7, 0), ny)).toBe('2026-03-08 03:00 EDT');
    expect(formatLocal(Date.UTC(2026, 10, 1, 5, 30), ny)).toBe('2026-11-01 01:30 EDT');
    expect(formatLocal(Date.UTC(2026, 10, 1, 6, 30), ny)).toBe('2026-11-01 01:30 EST');
  });

  it('gives what Intl gives for every hour of a year in several zones, in any order', () => {
    const zones = ['America/New_York', 'Europe/London', 'Australia/Lord_Howe', 'Asia/Kolkata', 'UTC'];
    const hours: number[] = [];
    for (let h = 0; h < 366 * 24; h += 13) hours.push(Date.UTC(2024, 0, 1) + h * 3_600_000 + 17 * 60_000);
    // Backwards and then forwards, so that cached labels and zone names are read as well as made.
    for (const ts of [...hours].reverse().concat(hours))
      for (const tz of zones) expect(formatLocal(ts, tz)).toBe(reference(ts, tz));
  });

  it('gives what Intl gives minute by minute through every offset change of 2024, in zones that change by 30 min or sit at 45 min', () => {
    const zones = [
      'America/New_York',
      'Australia/Lord_Howe',
      'Pacific/Chatham',
      'Asia/Kathmandu',
      'America/Santiago',
    ];
    const offsetName = new Map<string, Intl.DateTimeFormat>();
    const offsetOf = (ts: number, tz: string) => {
      let f = offsetName.get(tz);
      if (!f) {
        f = new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'longOffset' });
        offsetName.set(tz, f);
      }
      return f.formatToParts(new Date(ts)).find((p) => p.type === 'timeZoneName')!.value;
    };
    let changes = 0;
    for (const tz of zones) {
      const start = Date.UTC(2024, 0, 1);
      for (let t = start; t < Date.UTC(2025, 0, 1); t += 3_600_000) {
        if (offsetOf(t, tz) === offsetOf(t + 3_600_000, tz)) continue;
        changes++;
        for (let m = t - 90 * 60_000; m <= t + 150 * 60_000; m += 60_000)
          for (const ts of [m, m + 59_999]) expect(formatLocal(ts, tz)).toBe(reference(ts, tz));
      }
    }
    // New York, Lord Howe, Chatham and Santiago change twice; Kathmandu never.
    expect(changes).toBe(8);
  });
});
