/**
 * A report's period: whole days in the site's time zone. A day given as YYYY-MM-DD (or any time on it)
 * is that local day; the period runs from the first day's local midnight to the midnight after the last.
 */
import { addDays, localParts, zonedMidnight } from '../rules/util.ts';

export interface Period {
  /** Local midnight starting the first day, epoch ms. */
  from: number;
  /** Local midnight after the last day (exclusive), epoch ms. */
  to: number;
  /** The first and last day, YYYY-MM-DD, in the site's zone. */
  firstDay: string;
  lastDay: string;
}

const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;
const pad = (n: number) => String(n).padStart(2, '0');

/** The local calendar day of a query value: a day as written, or the day an instant falls on. */
function dayOf(v: string | number, tz: string): { year: number; month: number; day: number } {
  if (typeof v === 'string' && DAY_RE.test(v)) {
    const [year, month, day] = v.split('-').map(Number) as [number, number, number];
    return { year, month, day };
  }
  const p = localParts(typeof v === 'number' ? v : Date.parse(v), tz);
  return { year: p.year, month: p.month, day: p.day };
}

/** Whole local days from `from` to `to` (both included); by default the 30 days ending on `now`'s day. */
export function reportPeriod(
  q: { from?: string | number | undefined; to?: string | number | undefined },
  tz: string,
  now: number,
): Period {
  const last = dayOf(q.to ?? now, tz);
  const first = q.from !== undefined ? dayOf(q.from, tz) : addDays(last.year, last.month, last.day, -29);
  const after = addDays(last.year, last.month, last.day, 1);
  return {
    from: zonedMidnight(first.year, first.month, first.day, tz),
    to: zonedMidnight(after.year, after.month, after.day, tz),
    firstDay: `${first.year}-${pad(first.month)}-${pad(first.day)}`,
    lastDay: `${last.year}-${pad(last.month)}-${pad(last.day)}`,
  };
}
