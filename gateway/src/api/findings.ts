/**
 * An inspection's findings checked against its site before anything is recorded: findings are for
 * construction sites, each names one of the site's practices in force at the inspection's time (`at`,
 * ms: a practice retired by then is no longer inspected), and each photo it cites is one the caller
 * may cite (`photoAccess.ts`: uploaded by them, or already cited at a site they may see; any other is
 * refused as not stored). A refusal says what is wrong in words and names the part of the body in `field`.
 */
import {
  actsForDeveloper,
  type Finding,
  type InspectionSide,
  practicesInForce,
} from '../../../shared/src/api/findings.ts';
import { timeText } from '../../../shared/src/words.ts';
import type { Caller } from './auth.ts';
import type { ApiContext } from './context.ts';
import { ApiError } from './errors.ts';
import { uncitable } from './photoAccess.ts';

/** "1st", "2nd", "3rd", "4th", … */
function ordinal(n: number): string {
  const tens = n % 100;
  const suffix =
    tens >= 11 && tens <= 13 ? 'th' : n % 10 === 1 ? 'st' : n % 10 === 2 ? 'nd' : n % 10 === 3 ? 'rd' : 'th';
  return `${n}${suffix}`;
}

/** Labels as a list that ends a sentence (a label ending in a full stop ends it). */
const listed = (labels: readonly string[]) => {
  const s = labels.join('; ');
  return /[.!?]$/.test(s) ? s : `${s}.`;
};

export function checkFindings(
  ctx: Pick<ApiContext, 'catalogue' | 'photos' | 'config'>,
  caller: Caller,
  siteId: string,
  findings: readonly Finding[],
  at: number,
): void {
  const site = ctx.catalogue.site(siteId);
  if (!site) throw new ApiError('NOT_FOUND', `no site ${siteId}`);
  const name = site.name ?? site.id;
  if (site.kind !== 'construction')
    throw new ApiError(
      'NOT_CONSTRUCTION',
      `${name} is not a construction site: findings at practices are for construction sites only.`,
      undefined,
      'findings',
    );
  const all = site.practices ?? [];
  const practices = practicesInForce(all, at);
  const ids = new Set(practices.map((p) => p.id));
  findings.forEach((f, i) => {
    const retired = all.find((p) => p.id === f.practice && p.retired !== undefined);
    if (retired && !ids.has(f.practice))
      throw new ApiError(
        'RETIRED_PRACTICE',
        `The ${ordinal(i + 1)} finding is for ${retired.label}, which was retired from ${timeText(retired.retired ?? '', site.timezone ?? ctx.config.timezone)}: it is no longer inspected. Leave it out of the inspection.`,
        undefined,
        `findings[${i}].practice`,
      );
    if (!ids.has(f.practice))
      throw new ApiError(
        'UNKNOWN_PRACTICE',
        practices.length === 0
          ? `${name} lists no practices to inspect: an administrator adds them to the site first.`
          : `The ${ordinal(i + 1)} finding names a practice ${name} does not have. Its practices are: ${listed(practices.map((p) => p.label))}`,
        undefined,
        `findings[${i}].practice`,
      );
  });
  findings.forEach((f, i) => {
    const missing = uncitable(ctx.photos, caller, f.photos);
    if (missing.length > 0) {
      const j = f.photos.indexOf(missing[0]!);
      throw new ApiError(
        'UNKNOWN_PHOTO',
        `A photo of the ${ordinal(i + 1)} finding is not on the gateway: send the photo first, then the inspection.`,
        undefined,
        `findings[${i}].photos[${j}]`,
      );
    }
  });
}

/**
 * Whose inspection an account records. An owner's or contractor's account (limited to its sites) acts
 * for the developer: it records the developer's side only. The town's accounts record the town's own
 * inspection; one the site lists among its inspectors acting for the developer (`developerInspectors`:
 * an inspector the developer hired who has a town account, a clerk entering the developer's report on
 * paper) records the developer's side when it asks for it. Any other town account asking for the
 * developer's side is refused, so the town's visit never meets the developer's duty.
 */
export function inspectionSide(
  caller: Caller,
  asked: InspectionSide | undefined,
  site: { name?: string | undefined; id: string; developerInspectors?: readonly string[] | undefined },
): InspectionSide {
  if (caller.sites !== undefined) {
    if (asked === 'town')
      throw new ApiError(
        'FORBIDDEN',
        "Your account records the developer's inspections of its sites: only the town's staff record a town inspection.",
        undefined,
        'side',
      );
    return 'developer';
  }
  if (asked === 'developer' && !actsForDeveloper(site.developerInspectors, caller))
    throw new ApiError(
      'FORBIDDEN',
      `${caller.name} is not on record as an inspector acting for the developer at ${site.name ?? site.id}: record this inspection as the town's own, or ask an administrator to add ${caller.email ?? caller.name} to the site's inspectors acting for the developer.`,
      undefined,
      'side',
    );
  return asked ?? 'town';
}
