/**
 * The deficiencies an inspection names remedied (law 000, 5.030 B 1 d) are deficiencies of an earlier
 * inspection of the same site: checked before anything is recorded, so a mistyped id is refused with a
 * reason rather than recorded as a remedy of nothing.
 */
import type { InspectionDetails } from '../../../shared/src/api/findings.ts';
import { AlertError } from './errors.ts';
import type { InspectionStore } from './stores/inspections.ts';

export function checkRemedied(
  inspections: Pick<InspectionStore, 'byId'>,
  siteId: string,
  at: number,
  details: InspectionDetails | undefined,
): void {
  for (const ref of details?.remedied ?? []) {
    const slash = ref.lastIndexOf('/');
    const row = inspections.byId(ref.slice(0, slash));
    const n = Number(ref.slice(slash + 1));
    const found = row && row.site_id === siteId ? (JSON.parse(row.details || '{}') as InspectionDetails) : {};
    if (!row || row.site_id !== siteId || !found.deficiencies || n > found.deficiencies.length)
      throw new AlertError(
        'BAD_INSPECTION',
        `There is no deficiency ${ref} recorded at this site: choose the deficiencies from the site's open remedies.`,
      );
    if (row.at > at)
      throw new AlertError(
        'BAD_INSPECTION',
        `Deficiency ${ref} was found by an inspection after this one: a visit cannot remedy it before it was found.`,
      );
  }
}
