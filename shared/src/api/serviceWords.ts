/**
 * A notice's service, appeal window and hearing in words, in the site's time zone, as the notice's
 * document, its e-mail, the compliance report and the dashboard say them ("Not yet served; the appeal
 * window has not started.", "may be appealed to the Local Board of Health until the end of June 16,
 * 2026"). Without zod, so the dashboard's bundle can import it.
 */
import { dateInWords, endOfDayInWords, localDateOf } from '../days.ts';
import { formatLong } from '../time.ts';
import { lawOf, lawOfNotice } from './enforcementLaws.ts';
import {
  HEARING_OUTCOME_LABELS,
  type HearingOutcome,
  SERVICE_METHOD_LABELS,
  type ServiceMethod,
} from './enforcementWords.ts';

/** What a step after a notice is, in words. */
export const STEP_KIND_WORDS: Record<string, string> = {
  served: 'Served',
  appealed: 'Appealed',
  heard: 'Appeal heard',
  corrected: 'Correction reported',
  approved: 'Correction approved by the officer',
};

export const NOT_SERVED = 'Not yet served; the appeal window has not started.';

/** "the end of June 16, 2026": the last whole local day before `deadlineIso`. */
export const endOfDay = (deadlineIso: string, tz: string): string =>
  endOfDayInWords(Date.parse(deadlineIso), tz);

/** The appeal window of a notice as it stands, in words. */
export function appealWindowWords(
  v: {
    law?: string | undefined;
    servedAt?: string | undefined;
    appealBy?: string | undefined;
    appealDays?: number | undefined;
  },
  tz: string,
): string {
  const law = lawOfNotice(v);
  if (v.appealBy === undefined) return NOT_SERVED;
  if (v.servedAt === undefined)
    return `May be appealed to ${law.appealTo} within ${law.appealDays} days of service, until ${endOfDay(v.appealBy, tz)}.`;
  return `Served ${formatLong(Date.parse(v.servedAt), tz)}; may be appealed to ${law.appealTo} within ${law.appealDays} days of service, until ${endOfDay(v.appealBy, tz)}.`;
}

/** A service in words: "by mail on Pat Owner, Jun 1, 2026, 10:00 AM EDT". */
export function serviceWords(
  s: { method?: ServiceMethod | undefined; party?: string | undefined; servedAt?: string | undefined },
  tz: string,
): string {
  const how = s.method ? SERVICE_METHOD_LABELS[s.method] : 'served';
  const when = s.servedAt ? `, ${formatLong(Date.parse(s.servedAt), tz)}` : '';
  return `${how} on ${s.party ?? 'a party'}${when}`;
}

/** A hearing in words: "Heard by the Local Board of Health on June 20, 2026: upheld". */
export function hearingWords(
  h: { heldOn?: string | undefined; outcome?: HearingOutcome | undefined },
  law: string | undefined,
): string {
  const [y, m, d] = (h.heldOn ?? '').split('-').map(Number);
  const on = y && m && d ? ` on ${dateInWords({ year: y, month: m, day: d })}` : '';
  const outcome = h.outcome ? `: ${HEARING_OUTCOME_LABELS[h.outcome].toLowerCase()}` : '';
  return `Heard by ${lawOf(law).appealTo}${on}${outcome}`;
}

/**
 * A step's own words beyond its text: a service's how and whom, a hearing's date and outcome, the
 * re-inspection an approval rests on.
 */
export function stepDetailWords(
  e: {
    kind: string;
    method?: ServiceMethod | undefined;
    party?: string | undefined;
    servedAt?: string | undefined;
    heldOn?: string | undefined;
    outcome?: HearingOutcome | undefined;
    inspectedAt?: string | undefined;
    inspectedBy?: string | undefined;
  },
  law: string | undefined,
  tz: string,
): string {
  if (e.kind === 'served') return capitalised(serviceWords(e, tz));
  if (e.kind === 'heard') return hearingWords(e, law);
  if (e.kind === 'approved' && e.inspectedAt !== undefined) return capitalised(reinspectionWords(e, tz));
  return '';
}

/** The re-inspection an approval rests on: "on the re-inspection of Jun 1, 2026, 10:00 AM EDT by Ian Inspector". */
export function reinspectionWords(
  e: { inspectedAt?: string | undefined; inspectedBy?: string | undefined },
  tz: string,
): string {
  const when = e.inspectedAt ? ` of ${formatLong(Date.parse(e.inspectedAt), tz)}` : '';
  return `on the re-inspection${when}${e.inspectedBy ? ` by ${e.inspectedBy}` : ''}`;
}

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** The local date of an instant, "June 1, 2026". */
export const dayWords = (iso: string, tz: string): string => dateInWords(localDateOf(Date.parse(iso), tz));
