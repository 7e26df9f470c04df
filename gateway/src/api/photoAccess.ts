/**
 * Who may see a photo, and who may cite it. A photo is evidence of a site, not a key to it: knowing its
 * hash gives nothing.
 *
 * - See it (GET /api/photos/{sha256}): the people who may see a site whose records cite it (an
 *   inspection's findings, a correction report: each kind registered with `store/photos.ts` by its
 *   owner), and, until some record cites it, the person who uploaded it. Anyone else is answered as if it did
 *   not exist.
 * - Cite it (in an inspection's findings, in a correction report): the person who uploaded it, or
 *   someone who may see a site whose records already cite it. Anyone else is refused with the same words
 *   as for a photo that is not stored (`uncitable`), so the refusal does not tell whether it is.
 */
import type { PhotoStore } from '../store/photos.ts';
import { type Caller, maySee } from './auth.ts';

/** The account a photo's upload is charged to: a person's user id, or a configured token's name. */
export const accountOf = (c: Caller): string => c.userId ?? c.actor;

export function maySeePhoto(
  caller: Caller | undefined,
  uploadedByCaller: boolean,
  citingSites: readonly string[],
): boolean {
  if (citingSites.length === 0) return caller !== undefined && uploadedByCaller;
  return citingSites.some((siteId) => maySee(caller, siteId));
}

/**
 * Of these hashes, those the caller may not cite: photos not stored, and photos stored that the caller
 * did not upload and no site they may see cites. One list for both: the refusal is the same.
 */
export function uncitable(
  photos: Pick<PhotoStore, 'get' | 'uploadedBy' | 'citingSites'>,
  caller: Caller,
  hashes: readonly string[],
): string[] {
  const account = accountOf(caller);
  return [...new Set(hashes)].filter(
    (h) =>
      !photos.get(h) ||
      !(photos.uploadedBy(h, account) || photos.citingSites(h).some((siteId) => maySee(caller, siteId))),
  );
}
