/**
 * Who may see a photo: the people who may see a site whose records cite it (an inspection's findings;
 * the records are listed in `store/photos.ts`, `PHOTO_CITATIONS`), and, until some record cites it, the
 * person who stored it. Anyone else is answered as if it did not exist.
 */
import type { PhotoRow } from '../store/photos.ts';
import { type Caller, maySee } from './auth.ts';

export function maySeePhoto(
  caller: Caller | undefined,
  photo: Pick<PhotoRow, 'stored_by'>,
  citingSites: readonly string[],
): boolean {
  if (citingSites.length === 0) return caller !== undefined && caller.actor === photo.stored_by;
  return citingSites.some((siteId) => maySee(caller, siteId));
}
