import { describe, expect, it } from 'vitest';
import {
  addLocalDays,
  dateInWords,
  endOfLocalDate,
  lastDayOf,
  localDateOf,
  meets,
  priorTo,
  withinDays,
} from '../../shared/src/days.ts';

const NY = 'America/New_York';
const at = (s: string) => Date.parse(s);

describe('days: "within N days" as the law counts it', () => {
  it('does not count the day of the event, and keeps the last day whole', () => {
    // A notice served at 16:00 EDT on June 1: 15 days end at the end of June 16, local time.
    const served = at('2026-06-01T16:00:00-04:00');
    const end = withinDays(served, 15, NY);
    expect(end).toBe(at('2026-06-17T00:00:00-04:00'));
    expect(meets(at('2026-06-16T23:45:00-04:00'), end)).toBe(true);
    expect(meets(at('2026-06-17T00:01:00-04:00'), end)).toBe(false);
    expect(dateInWords(lastDayOf(end, NY))).toBe('June 16, 2026');
  });

  it('counts a served-at-23:59 event from its own local day, not UTC', () => {
    // 23:59 EDT on June 1 is June 2 in UTC; the local day is June 1.
    const served = at('2026-06-01T23:59:00-04:00');
    expect(localDateOf(served, NY)).toEqual({ year: 2026, month: 6, day: 1 });
    expect(withinDays(served, 15, NY)).toBe(at('2026-06-17T00:00:00-04:00'));
  });

  it('ends at local midnight across a daylight-saving change (the last day 25 hours long)', () => {
    // Served October 20, 2026; 15 days end at the end of November 4 (EST after November 1).
    const served = at('2026-10-20T10:00:00-04:00');
    const end = withinDays(served, 15, NY);
    expect(end).toBe(at('2026-11-05T00:00:00-05:00'));
    expect(meets(at('2026-11-04T23:45:00-05:00'), end)).toBe(true);
    expect(meets(at('2026-11-05T00:01:00-05:00'), end)).toBe(false);
    // The day of the change is itself 25 hours long.
    expect(endOfLocalDate({ year: 2026, month: 11, day: 1 }, NY) - at('2026-11-01T00:00:00-04:00')).toBe(
      25 * 3_600_000,
    );
  });

  it('makes the 60th day whole: a June 1 letter allows July 31 until its end', () => {
    const letter = at('2026-06-01T00:00:00-04:00');
    const end = withinDays(letter, 60, NY);
    expect(meets(at('2026-07-31T11:30:00-04:00'), end)).toBe(true);
    expect(meets(at('2026-07-31T23:59:59-04:00'), end)).toBe(true);
    expect(meets(at('2026-08-01T00:00:00-04:00'), end)).toBe(false);
  });

  it('reads "prior to September 1st" as the end of August 31', () => {
    const end = priorTo(2026, '09-01', NY);
    expect(meets(at('2026-08-31T23:59:00-04:00'), end)).toBe(true);
    expect(meets(at('2026-09-01T00:00:00-04:00'), end)).toBe(false);
  });

  it('counts across February 29 and refuses a fraction of a day', () => {
    expect(addLocalDays({ year: 2028, month: 2, day: 28 }, 1)).toEqual({ year: 2028, month: 2, day: 29 });
    expect(addLocalDays({ year: 2028, month: 2, day: 29 }, 365)).toEqual({ year: 2029, month: 2, day: 28 });
    expect(() => withinDays(0, 1.5, NY)).toThrow(RangeError);
  });
});
