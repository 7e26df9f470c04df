/**
 * The photos of the report's inspections, carried in the page itself so that a saved or printed report
 * stands alone: each as a `data:` URI of its stored bytes (the gateway keeps no smaller copy), in the order
 * the report lists them, up to a budget (`PHOTO_BUDGET`: so many photos, so many bytes). A photo past the
 * budget, one not on file, or one whose stored bytes do not match its hash is listed by its hash with a
 * line saying why it is not shown and where to open it. Only photos the site's own records cite are read.
 */
import { createHash } from 'node:crypto';
import type { PhotoStore } from '../store/photos.ts';
import type { ComplianceReport } from './report.ts';

/** What one report carries of its photos. */
export interface PhotoBudget {
  photos: number;
  bytes: number;
}
export const PHOTO_BUDGET: PhotoBudget = { photos: 60, bytes: 6 * 1024 * 1024 };

/**
 * A photo as the page shows it: embedded (`src`), or not, and why: past the budget (`more` photos than
 * a report carries), not on file, or changed since it was stored.
 */
export type ReportPhoto =
  | { shown: true; src: string }
  | { shown: false; why: 'budget'; more: number }
  | { shown: false; why: 'missing' | 'changed' };

/** The report's photo hashes, each once, in the order its inspections and their findings list them. */
export function photosOf(r: Pick<ComplianceReport, 'inspections'>): string[] {
  const seen = new Set<string>();
  for (const x of r.inspections) for (const f of x.findings ?? []) for (const p of f.photos) seen.add(p);
  return [...seen];
}

/** Reads the report's photos for its page, within the budget. */
export async function reportPhotos(
  r: Pick<ComplianceReport, 'inspections' | 'site'>,
  store: Pick<PhotoStore, 'get' | 'read' | 'citingSites'>,
  budget: PhotoBudget = PHOTO_BUDGET,
): Promise<Map<string, ReportPhoto>> {
  const out = new Map<string, ReportPhoto>();
  const over: string[] = [];
  let shown = 0;
  let bytes = 0;
  for (const sha of photosOf(r)) {
    const row = store.get(sha);
    if (!row || !store.citingSites(sha).includes(r.site.id)) {
      out.set(sha, { shown: false, why: 'missing' });
      continue;
    }
    // Past the budget once, always past it: the report carries its first photos, in order.
    if (over.length > 0 || shown >= budget.photos || bytes + row.bytes > budget.bytes) {
      over.push(sha);
      continue;
    }
    const data = await store.read(sha);
    if (createHash('sha256').update(data).digest('hex') !== sha) {
      out.set(sha, { shown: false, why: 'changed' });
      continue;
    }
    shown++;
    bytes += data.length;
    out.set(sha, { shown: true, src: `data:${row.type};base64,${data.toString('base64')}` });
  }
  for (const sha of over) out.set(sha, { shown: false, why: 'budget', more: over.length });
  return out;
}
