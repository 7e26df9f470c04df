/**
 * Deadlines as the law counts them, the one implementation every rule and enforcement step uses.
 *
 * "Within N days" of an event ends at the end of the Nth local day after the day of the event, in the
 * site's time zone: the day of the event is not counted, and the last day is whole (a daylight-saving
 * change makes that day 23 or 25 hours long; the deadline is still its local midnight). A deadline here is
 * the first instant that is late: a submittal at `t` is on time when `t < deadline`.
 *
 * Without zod and without clock reads, so the dashboard's bundle can import it.
 */
import { addDays, localParts, zonedMidnight } from './time.ts';

/** A calendar date (month 1-12), with no time of day and no zone. */
export interface LocalDate {
  year: number;
  month: number;
  day: number;
}

/** The local calendar date of instant `ts` in time zone `tz`. */
export function localDateOf(ts: number, tz: string): LocalDate {
  const p = localParts(ts, tz);
  return { year: p.year, month: p.month, day: p.day };
}

/** The first instant of local date `d` in `tz` (its local midnight). */
export function startOfLocalDate(d: LocalDate, tz: string): number {
  return zonedMidnight(d.year, d.month, d.day, tz);
}

/** The end of local date `d` in `tz`: the first instant of the next day. */
export function endOfLocalDate(d: LocalDate, tz: string): number {
  return startOfLocalDate(addDays(d.year, d.month, d.day, 1), tz);
}

/** Date `d` moved by `n` calendar days (negative goes back). */
export function addLocalDays(d: LocalDate, n: number): LocalDate {
  return addDays(d.year, d.month, d.day, n);
}

/**
 * The end of "within `days` days" of the event at `eventTs`: the end of the `days`th local day after the
 * event's own day, in `tz`. With `days` 0 the deadline is the end of the event's own day.
 */
export function withinDays(eventTs: number, days: number, tz: string): number {
  if (!Number.isInteger(days) || days < 0) throw new RangeError(`whole days expected, got ${days}`);
  return endOfLocalDate(addLocalDays(localDateOf(eventTs, tz), days), tz);
}

/**
 * "Prior to" a date: the deadline is that date's local midnight (the day before is the last whole day).
 * `mmdd` is "MM-DD" of `year`.
 */
export function priorTo(year: number, mmdd: string, tz: string): number {
  const [mm, dd] = mmdd.split('-').map(Number) as [number, number];
  return zonedMidnight(year, mm, dd, tz);
}

/** Whether a submittal at `ts` meets a deadline (the first late instant). */
export const meets = (ts: number, deadline: number): boolean => ts < deadline;

/** The last whole local day a deadline allows: the day before the deadline's instant (deadline - 1 ms). */
export function lastDayOf(deadline: number, tz: string): LocalDate {
  return localDateOf(deadline - 1, tz);
}

/** "the end of July 31, 2026": the last whole local day a deadline allows, in words. */
export function endOfDayInWords(deadline: number, tz: string): string {
  return `the end of ${dateInWords(lastDayOf(deadline, tz))}`;
}

/** "July 31, 2026": a local date in words, for notices and reports. */
export function dateInWords(d: LocalDate): string {
  return new Date(Date.UTC(d.year, d.month - 1, d.day)).toLocaleDateString('en-US', {
    timeZone: 'UTC',
    year: 'numeric',
    month: 'long',
    day: 'numeric',
  });
}

/**
 * Date `d` moved by `n` calendar years (negative goes back). February 29 in a year without one is
 * February 28, the month's last day: a count of years never runs past the month it ends in.
 */
export function addLocalYears(d: LocalDate, n: number): LocalDate {
  const year = d.year + n;
  const last = new Date(Date.UTC(year, d.month, 0)).getUTCDate();
  return { year, month: d.month, day: Math.min(d.day, last) };
}

/**
 * "Not less than `n` years from the date of" the event at `eventTs`: the end of the same local date `n`
 * years later (February 29 in a year without one: February 28), in `tz`.
 */
export function yearsFromDate(eventTs: number, n: number, tz: string): number {
  return endOfLocalDate(addLocalYears(localDateOf(eventTs, tz), n), tz);
}
