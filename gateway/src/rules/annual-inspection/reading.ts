/**
 * The town's reading of "within 60 days or prior to September 1st" in words: the alert's message says it,
 * and the compliance report prints it under the annual inspections ("Deadline read as: …").
 */
import { addLocalDays } from '../../../../shared/src/days.ts';
import type { Parsed } from '../context.ts';
import type { Params } from './params.ts';

type Annual = Parsed<Params['site']>['annualInspection'];

/** "August 31": the last whole day "prior to" a fixed date MM-DD (in a year with no February 29). */
export function lastDayBefore(mmdd: string): string {
  const [mm, dd] = mmdd.split('-').map(Number) as [number, number];
  if (mm === 3 && dd === 1) return 'the last day of February';
  const d = addLocalDays({ year: 2001, month: mm, day: dd }, -1);
  return new Date(Date.UTC(d.year, d.month - 1, d.day)).toLocaleDateString('en-US', {
    timeZone: 'UTC',
    month: 'long',
    day: 'numeric',
  });
}

/**
 * The deadline as the configuration reads it: "the earlier of 60 days after the town's letter and
 * August 31"; with `fixedCounts` false (the letter went out after the fixed date), the days alone.
 */
export function deadlineReading(a: Annual, fixedCounts = true): string {
  const days = `${a.withinDays} days after the town's letter`;
  return fixedCounts ? `the ${a.rule} of ${days} and ${lastDayBefore(a.notAfter)}` : days;
}

/** The report's line: the reading, and whose choice it is. */
export function reportReading(a: Annual): string {
  return (
    `Deadline read as: ${deadlineReading(a)} (the town's choice of reading "within 60 days or prior to ` +
    `September 1st"; each last day is whole, to midnight in the site's time zone).`
  );
}
