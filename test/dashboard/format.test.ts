import { describe, expect, it } from 'vitest';

interface FormatModule {
  formatTime(t: string | number | null | undefined, tz: string): string;
  formatDuration(ms: number): string;
  relativeDue(due: string | number, now: number): string;
  relativePast(t: string | number, now: number): string;
  zonedToUtc(local: string, tz: string): number;
  utcToZonedInput(ms: number, tz: string): string;
  isSilent(
    d: { kind: string; lastReadingAt: string | null; lastReceivedAt?: string | null },
    now: number,
  ): boolean;
  tipsPerBucket(
    points: Array<{ ts: string; value: number }>,
    from: number,
    to: number,
    bucketMs: number,
  ): Array<{ start: number; tips: number }>;
  shortDate(t: string | number, tz: string, now?: number): string;
  dueInWords(due: string | number, now: number): string;
  sameFormat(text: string, tz: string): string;
}

const modulePath = '../../dashboard/src/ui/format.ts';
const f = (await import(modulePath)) as FormatModule;
const H = 3_600_000;

describe('dashboard formatting', () => {
  it('shows times in the site zone, with its abbreviation', () => {
    expect(f.formatTime('2025-03-04T19:05:00Z', 'America/New_York')).toBe('Mar 4, 2025, 2:05 PM EST');
    expect(f.formatTime('2025-07-04T19:05:00Z', 'America/New_York')).toBe('Jul 4, 2025, 3:05 PM EDT');
    expect(f.formatTime(null, 'UTC')).toBe('');
  });

  it("writes the times of the gateway's sentences as formatTime does, the twice-struck hour by its zone", () => {
    const ny = 'America/New_York';
    expect(f.sameFormat('Tank 1 was last pumped 2022-06-01 12:00 EDT: pump it by June 1, 2025.', ny)).toBe(
      'Tank 1 was last pumped Jun 1, 2022, 12:00 PM EDT: pump it by Jun 1, 2025.',
    );
    expect(f.sameFormat('2026-11-01 01:30 EDT, then 2026-11-01 01:30 EST', ny)).toBe(
      'Nov 1, 2026, 1:30 AM EDT, then Nov 1, 2026, 1:30 AM EST',
    );
    expect(f.sameFormat('at 2026-12-01T15:04:05.123Z, by 2026-12-20 (storm-2026-12-01)', ny)).toBe(
      'at Dec 1, 2026, 10:04 AM EST, by Dec 20, 2026 (storm-2026-12-01)',
    );
    // Another zone's label the page cannot read back stays as written.
    expect(f.sameFormat('2026-07-31 04:00 UTC; 2026-07-31 04:00 PDT', ny)).toBe(
      'Jul 31, 2026, 12:00 AM EDT; 2026-07-31 04:00 PDT',
    );
  });

  it('says how far a deadline is, or how late it is', () => {
    const now = Date.parse('2025-03-04T12:00:00Z');
    expect(f.relativeDue(now + 5 * H, now)).toBe('in 5 h');
    expect(f.relativeDue(now - 3 * H, now)).toBe('3 h overdue');
    expect(f.relativeDue(now + 90 * 60_000, now)).toBe('in 1 h 30 min');
    expect(f.relativeDue(now - 26 * H, now)).toBe('1 d 2 h overdue');
    expect(f.relativeDue(now + 10 * 24 * H, now)).toBe('in 10 d');
    expect(f.relativePast(now - 12 * 60_000, now)).toBe('12 min ago');
    expect(f.relativePast(now - 10_000, now)).toBe('just now');
  });

  it('says a day short in the site zone, and a deadline in whole days', () => {
    const now = Date.parse('2026-12-02T15:00:00Z');
    // 03:30 UTC on Dec 1 is still Nov 30 in New York.
    expect(f.shortDate('2026-12-01T03:30:00Z', 'America/New_York', now)).toBe('Nov 30');
    expect(f.shortDate('2026-12-01T03:30:00Z', 'UTC', now)).toBe('Dec 1');
    expect(f.shortDate('2025-11-30T15:00:00Z', 'UTC', now)).toBe('Nov 30, 2025');
    expect(f.dueInWords(now + 3 * 24 * H + 5 * H, now)).toBe('in 3 days');
    expect(f.dueInWords(now + 24 * H, now)).toBe('in 1 day');
    expect(f.dueInWords(now - 2 * 24 * H - H, now)).toBe('2 days overdue');
    expect(f.dueInWords(now + 5 * H + 1, now)).toBe('in 5 hours');
    expect(f.dueInWords(now - 90_000, now)).toBe('1 minute overdue');
  });

  it('turns a wall-clock time in a zone into UTC and back, across DST', () => {
    expect(new Date(f.zonedToUtc('2025-03-04T14:05', 'America/New_York')).toISOString()).toBe(
      '2025-03-04T19:05:00.000Z',
    );
    expect(new Date(f.zonedToUtc('2025-07-04T15:05', 'America/New_York')).toISOString()).toBe(
      '2025-07-04T19:05:00.000Z',
    );
    expect(f.utcToZonedInput(Date.parse('2025-11-02T05:30:00Z'), 'America/New_York')).toBe(
      '2025-11-02T01:30',
    );
    expect(Number.isNaN(f.zonedToUtc('', 'UTC'))).toBe(true);
  });

  it('calls a device silent past its kind limit, and one never heard from a gap', () => {
    const now = Date.parse('2025-03-04T12:00:00Z');
    const at = (ms: number) => new Date(ms).toISOString();
    expect(f.isSilent({ kind: 'rain-gauge', lastReadingAt: at(now - 59 * 60_000) }, now)).toBe(false);
    expect(f.isSilent({ kind: 'rain-gauge', lastReadingAt: at(now - 61 * 60_000) }, now)).toBe(true);
    expect(f.isSilent({ kind: 'sediment-trap', lastReadingAt: at(now - 90 * 60_000) }, now)).toBe(false);
    expect(f.isSilent({ kind: 'sediment-trap', lastReadingAt: null }, now)).toBe(true);
  });

  it('turns a cumulative tip counter into rain per bucket, a drop being a reset', () => {
    const from = Date.parse('2025-03-04T00:00:00Z');
    const p = (h: number, value: number) => ({ ts: new Date(from + h * H).toISOString(), value });
    const b = f.tipsPerBucket(
      [p(0.1, 100), p(0.5, 110), p(1.5, 130), p(2.2, 5), p(2.8, 9)],
      from,
      from + 3 * H,
      H,
    );
    expect(b.map((x) => x.tips)).toEqual([10, 20, 9]);
  });
});
