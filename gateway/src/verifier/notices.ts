/**
 * The law of milestone notices (town law 001, A(1)) that no table says: a notice is late when it was
 * filed less than 48 hours before its milestone's time, and the summary counts those on time and late.
 * The notices themselves (each against its entry, numbered without a gap, none of the period left out)
 * are the table `notices` of `sections.ts`. Pure, no Node API.
 */
import { type CitedBody, ms } from './checker.ts';
import { type Problem, problem, type Words, when } from './words.ts';

/** A notice as a report lists it. */
export interface ShownNotice {
  id: string;
  milestone: string;
  label?: string;
  at: string;
  filedAt: string;
  filedBy?: string;
  late: boolean;
  logIndex?: number;
}

const LEAD_MS = 48 * 3_600_000;

/** What a notice is called in a sentence: 'The milestone notice "…" for <its time>'. */
export const noticeWhere = (n: ShownNotice, w: Words): string =>
  `The milestone notice "${n.label ?? n.milestone}" for ${when(ms(n.at), w)}`;

/** Its lateness is the 48 hours' rule applied to its logged times, as its record and the report say. */
export function checkLate(n: ShownNotice, e: CitedBody, base: string, where: string, w: Words): Problem[] {
  const b = e.body;
  const late = (b.at as number) - (b.filedAt as number) < LEAD_MS;
  if (late === b.late && late === n.late) return [];
  return [
    problem(
      `${base}.late`,
      `${where}: filed ${when(b.filedAt, w)}, it is ${late ? 'late' : 'on time'} by the 48 hours' rule, the report says ${n.late ? 'late' : 'on time'}`,
    ),
  ];
}

/** The summary's counts of notices on time and late: what the list gives. */
export function checkNoticeCounts(r: {
  notices?: ShownNotice[];
  summary: Record<string, number>;
}): Problem[] {
  if (!r.notices || r.summary.noticesOnTime === undefined) return [];
  const expected = {
    noticesOnTime: r.notices.filter((n) => !n.late).length,
    noticesLate: r.notices.filter((n) => n.late).length,
  };
  return Object.entries(expected)
    .filter(([k, v]) => r.summary[k] !== v)
    .map(([k, v]) =>
      problem(
        `summary.${k}`,
        `The summary counts ${r.summary[k]} milestone notices ${k === 'noticesLate' ? 'late' : 'on time'}, its rows ${v}`,
      ),
    );
}
