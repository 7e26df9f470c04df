/**
 * What an inspection of a construction site found at each practice (town law 001: the developer "shall
 * inspect and document the effectiveness of all erosion and sediment control practices"), in the report:
 * on the page, a small table under the inspection (the practice by its label, the finding in words, the
 * note, and the photos as thumbnails carried in the page, each with its SHA-256, short under it and whole
 * in its title); in the CSV, a `finding` row each, with the photos' hashes. A practice is named by the
 * label the site gave it when the report was made (the report's `site.practices`), or said to be gone.
 */
import type { InspectionDto } from '../../../../shared/src/api/alerts.ts';
import { FINDING_STATUS_LABELS } from '../../../../shared/src/api/inspectionWords.ts';
import type { ReportPhoto } from '../photos.ts';
import type { ComplianceReport } from '../report.ts';
import { escapeXml as esc } from '../stormChart.ts';
import { wordFor } from '../words.ts';

/** A finding's practice that the site no longer lists. */
export const GONE_PRACTICE = 'A practice the site no longer lists';

/** What the findings' part of the page is drawn with. */
export interface FindingsContext {
  /** The report's photos as read for its page (none: each is listed by its hash and address). */
  photos: ReadonlyMap<string, ReportPhoto>;
  /** Where a photo is opened (an absolute address: it stays usable on paper). */
  photoUrl(sha256: string): string;
}

/** A practice's label, from the site's practices as the report lists them. */
export function practiceLabel(r: Pick<ComplianceReport, 'site'>, id: string): string {
  return r.site.practices?.find((p) => p.id === id)?.label ?? GONE_PRACTICE;
}

/** A hash's short form, as printed under its photo. */
export const shortHash = (sha: string): string => `${sha.slice(0, 12)}…`;

/** Why a photo is not in the page, in words. */
function notShown(p: ReportPhoto | undefined): string {
  if (p === undefined || p.shown) return 'Photo not embedded';
  if (p.why === 'budget')
    return `Photo not embedded: ${p.more} more photo${p.more === 1 ? '' : 's'} than a report carries`;
  if (p.why === 'changed') return 'Photo not embedded: the stored photo does not match its hash';
  return 'Photo not embedded: it is not on file at the gateway';
}

/** One photo: its thumbnail and short hash, or its hash and why it is not shown, with where to open it. */
function photo(sha: string, alt: string, c: FindingsContext): string {
  const p = c.photos.get(sha);
  const hash = `<code title="SHA-256 ${esc(sha)}">${esc(shortHash(sha))}</code>`;
  if (p?.shown)
    return `<figure class="photo"><img src="${esc(p.src)}" alt="${esc(alt)}" title="SHA-256 ${esc(sha)}"><figcaption>${hash}</figcaption></figure>`;
  const url = c.photoUrl(sha);
  return `<figure class="photo left"><figcaption>${hash}<br><small>${esc(notShown(p))}; open it at <a href="${esc(url)}">${esc(url)}</a></small></figcaption></figure>`;
}

/** The findings' table of an inspection, or nothing when it has none. */
export function findingsHtml(
  x: Pick<InspectionDto, 'findings'>,
  r: Pick<ComplianceReport, 'site'>,
  c: FindingsContext,
): string {
  if (!x.findings?.length) return '';
  const rows = x.findings.map((f) => {
    const label = practiceLabel(r, f.practice);
    const photos = f.photos
      .map((sha, i) => photo(sha, `${label}, as found (${i + 1} of ${f.photos.length})`, c))
      .join('');
    return `<tr><td>${esc(label)}</td><td>${esc(wordFor(FINDING_STATUS_LABELS, f.status))}</td><td>${esc(f.note) || '—'}</td><td class="photos">${photos || '<span class="none">None</span>'}</td></tr>`;
  });
  return `<table class="findings"><thead><tr><th>Practice</th><th>Finding</th><th>Note</th><th>Photos</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/**
 * The CSV's `finding` rows of an inspection, in the report's columns: its inspection's id and time, the
 * finding in words (`status`), the note (`detail`), the practice's label and the photos' hashes, separated
 * by spaces (the last two columns).
 */
export function findingRows(x: InspectionDto, r: Pick<ComplianceReport, 'site'>): unknown[][] {
  return (x.findings ?? []).map((f) => [
    'finding',
    x.id,
    '',
    '',
    x.at,
    '',
    '',
    wordFor(FINDING_STATUS_LABELS, f.status),
    f.note,
    '',
    practiceLabel(r, f.practice),
    f.photos.join(' '),
  ]);
}
