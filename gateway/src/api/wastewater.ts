/**
 * What an inspection of a wastewater system records beyond its kind, checked against its site before
 * anything is recorded (law 000): deficiencies are for the engineer's annual inspection of an advanced
 * system (5.030 B 1 d), a hauler for a pump-out of a tank (appendix VII). Whether the deficiencies named
 * remedied are the site's is the engine's check (`alerts/deficiencies.ts`), which has the inspections.
 * A refusal says what is wrong in words and names the part of the body in `field`.
 */
import {
  ADVANCED_SYSTEM_SITE_KINDS,
  type InspectionBody,
  type InspectionDetails,
  PUMPED_SITE_KINDS,
} from '../../../shared/src/api/findings.ts';
import type { ApiContext } from './context.ts';
import { ApiError } from './errors.ts';

const has = (kinds: readonly string[], kind: string) => kinds.includes(kind);

export function checkWastewater(ctx: Pick<ApiContext, 'catalogue'>, b: InspectionBody): void {
  const site = ctx.catalogue.site(b.siteId);
  if (!site) throw new ApiError('NOT_FOUND', `no site ${b.siteId}`);
  const name = site.name ?? site.id;
  if (b.deficiencies?.length) {
    if (b.kind !== 'annual')
      throw new ApiError(
        'BAD_REQUEST',
        "Deficiencies to remedy are recorded with the engineer's annual inspection: choose that kind of inspection.",
        undefined,
        'deficiencies',
      );
    if (!has(ADVANCED_SYSTEM_SITE_KINDS, site.kind))
      throw new ApiError(
        'BAD_REQUEST',
        `${name} is not an alternative system or a holding tank: the 5- and 30-day remedies of the annual inspection are for those systems only.`,
        undefined,
        'deficiencies',
      );
  }
  if (b.remedied?.length && !has(ADVANCED_SYSTEM_SITE_KINDS, site.kind))
    throw new ApiError(
      'BAD_REQUEST',
      `${name} is not an alternative system or a holding tank: it has no deficiencies to remedy.`,
      undefined,
      'remedied',
    );
  if (b.hauler) {
    if (b.kind !== 'cleanout')
      throw new ApiError(
        'BAD_REQUEST',
        'The hauler and permit number are recorded with a pump-out: choose that kind of inspection.',
        undefined,
        'hauler',
      );
    if (!has(PUMPED_SITE_KINDS, site.kind))
      throw new ApiError(
        'BAD_REQUEST',
        `${name} has no septic or holding tank to pump out.`,
        undefined,
        'hauler',
      );
  }
}

/** The body's deficiencies, deficiencies remedied and hauler, as the inspection records them; none: undefined. */
export function inspectionDetails(b: InspectionBody): InspectionDetails | undefined {
  const d: InspectionDetails = {
    ...(b.deficiencies?.length ? { deficiencies: b.deficiencies } : {}),
    ...(b.remedied?.length ? { remedied: [...new Set(b.remedied)] } : {}),
    ...(b.hauler ? { hauler: b.hauler } : {}),
  };
  return Object.keys(d).length > 0 ? d : undefined;
}
