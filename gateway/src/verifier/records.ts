/**
 * The law of the developer's records (town law 001) that no table says: a contractor's certification
 * carries the law's statement word for word (SWPPP certification, A); the officer's confirmation of a
 * final stabilization names the site's final stabilization record, logged before it and dated no later
 * (SWPPP certification, D: the SWPPP kept "to the date of final stabilization"). The records themselves (each
 * against its entry, numbered without a gap, none of the period left out) are the table `records` of
 * `sections.ts`. Pure, no Node API.
 */
import { CERTIFICATION_STATEMENT } from '../../../shared/src/api/siteRecordWords.ts';
import { type CitedBody, type Context, ms } from './checker.ts';
import { type Problem, problem, type Words, when } from './words.ts';

/** A developer's record as a report lists it. */
export interface ShownSiteRecord {
  id: string;
  kind: string;
  at: string;
  recordedAt: string;
  recordedBy?: string;
  body?: Record<string, unknown>;
  summary?: string;
  logIndex?: number;
}

/** What a record is called in a sentence: 'The record "certification" of <its time>'. */
export const recordWhere = (x: ShownSiteRecord, w: Words): string =>
  `The developer's record (${x.kind}) of ${when(ms(x.at), w)}`;

/** A certification's logged statement is the law's. */
export function checkStatement(e: CitedBody, base: string, where: string): Problem[] {
  const b = e.body.body as Record<string, unknown> | undefined;
  if (e.body.kind !== 'certification' || b?.statement === CERTIFICATION_STATEMENT) return [];
  return [
    problem(
      `${base}.body.statement`,
      `${where}: the statement signed is not the law's certification statement (001, SWPPP certification, A)`,
    ),
  ];
}

/** A confirmation of final stabilization confirms the site's final stabilization, logged before it. */
export function checkConfirmation(e: CitedBody, base: string, where: string, ctx: Context): Problem[] {
  const b = e.body.body as Record<string, unknown> | undefined;
  if (e.body.kind !== 'stabilization-confirmation') return [];
  const target = ctx.all.find(
    (x) =>
      x.kind === 'site-record' &&
      x.body.id === b?.confirms &&
      x.body.siteId === e.body.siteId &&
      x.body.kind === 'final-stabilization',
  );
  if (!target || target.index > e.index)
    return [
      problem(
        `${base}.body.confirms`,
        `${where}: it confirms a final stabilization that the report does not show logged before it`,
      ),
    ];
  // Logged times are epoch ms.
  return Number(target.body.at) > Number(e.body.at)
    ? [problem(`${base}.at`, `${where}: it is dated before the final stabilization it confirms`)]
    : [];
}
