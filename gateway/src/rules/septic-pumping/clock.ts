/**
 * The pumping clock in the site's calendar (law 000, appendix VII, "every 2-3 years"): from the local date
 * of the last pump-out, the reminder begins at the start of the day `reminderYears` later, and the duty is
 * due at the end of the day `maxYears` later (the day of the pump-out not counted, as `withinDays` counts
 * days). A pump-out on February 29 has its anniversaries on February 28 in the years without one
 * (`addLocalYears`). A fraction of a year is that share of 365.25 days, rounded to whole days.
 */
import {
  addLocalDays,
  addLocalYears,
  endOfLocalDate,
  type LocalDate,
  localDateOf,
  startOfLocalDate,
} from '../../../../shared/src/days.ts';
import { dueBefore } from '../util.ts';

/** The local date `years` after `d`: whole calendar years, then the fraction as days. */
export function yearsAfter(d: LocalDate, years: number): LocalDate {
  const whole = Math.floor(years);
  return addLocalDays(addLocalYears(d, whole), Math.round((years - whole) * 365.25));
}

export interface PumpingClock {
  /** The reminder's start: the duty opens then. */
  remindAt: number;
  /** The first late instant: the end of the last day. */
  dueAt: number;
}

export function pumpingClock(
  pumpedAt: number,
  sp: { maxYears: number; reminderYears: number },
  tz: string,
): PumpingClock {
  const day = localDateOf(pumpedAt, tz);
  const dueAt = dueBefore(endOfLocalDate(yearsAfter(day, sp.maxYears), tz));
  const remindAt = startOfLocalDate(yearsAfter(day, Math.min(sp.reminderYears, sp.maxYears)), tz);
  return { remindAt, dueAt };
}
