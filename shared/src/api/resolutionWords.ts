/**
 * An alert's resolution in words: what closed it ("by the storm inspection by Pat Smith on Dec 1, 2026,
 * 9:00 AM EST", "by the officer's approval of notice of violation no. 2", "from the readings: rg-1's
 * reading at …"), times in the site's zone through the caller's `t`. Without zod (the dashboard's and the
 * verifier's bundles take it); the cause's schema is `resolutionCause.ts`.
 */
import type { ResolutionCause } from './resolutionCause.ts';
import { SITE_RECORD_LABELS, type SiteRecordKind } from './siteRecordWords.ts';

/** An ISO time in the reader's words (the site's zone). */
export type TimeWords = (iso: string) => string;

/** "storm inspection", "inspection" for a kind with no word of its own. */
function inspectionName(kind: string): string {
  return kind === 'other' || kind === '' ? 'inspection' : `${kind} inspection`;
}

function recordName(record: string): string {
  if (record === 'notice') return 'the milestone notice';
  const label = (SITE_RECORD_LABELS as Record<string, string | undefined>)[record as SiteRecordKind];
  return label ? `the record "${label}"` : 'the record';
}

/**
 * What closed it, as the rest of a sentence that begins "Resolved": "by the storm inspection by Pat Smith
 * on …", "from the readings: …". A cause the reader does not know (a newer release's) reads as "by <by>".
 */
export function causeWords(c: ResolutionCause, t: TimeWords): string {
  switch (c.kind) {
    case 'readings':
      return `from the readings: ${c.deviceId ? `device ${c.deviceId}'s` : 'the'} reading of ${t(c.at)}`;
    case 'inspection':
      // A pump-out names its hauler and permit, and who recorded it.
      return c.hauler
        ? `by the pump-out by ${c.hauler.name} (NYS DEC permit ${c.hauler.permit}) on ${t(c.at)}, recorded by ${c.inspector}`
        : `by the ${inspectionName(c.inspectionKind)} by ${c.inspector} on ${t(c.at)}`;
    case 'notice': {
      const no = c.number !== undefined ? `notice of violation no. ${c.number}` : 'the notice of violation';
      return c.step === 'approved'
        ? `by the officer's approval of ${no} (${c.by}, ${t(c.at)})`
        : `by the reversal of ${no} on appeal (recorded by ${c.by}, ${t(c.at)})`;
    }
    case 'record':
      return `by ${recordName(c.record)} filed by ${c.by} on ${t(c.at)}`;
    case 'person':
      return `by ${c.by}, by hand`;
    case 'clock':
      return `when device ${c.deviceId}'s clock was corrected by ${c.by} on ${t(c.at)}`;
    case 'history':
      return `by the site's history on record (${t(c.at)})`;
    case 'schedule':
      return `by the gateway's schedule on ${t(c.at)}`;
    default:
      return 'by a cause this copy does not know';
  }
}

/**
 * The whole sentence: "Resolved by …" with its cause; for a resolution recorded before causes were kept,
 * as it read before ("Resolved from the readings", "Resolved by Pat Officer").
 */
export function resolvedWords(
  r: { how?: unknown; by?: string | undefined; cause?: ResolutionCause | undefined },
  t: TimeWords,
): string {
  if (r.cause) return `Resolved ${causeWords(r.cause, t)}`;
  if (r.how === 'auto') return 'Resolved from the readings';
  return r.by && r.by !== 'system' ? `Resolved by ${r.by}` : 'Resolved';
}

/** The id of the record a cause names, for a link (an inspection's or a notice's), or undefined. */
export function causeRecord(c: ResolutionCause | undefined): { inspectionId?: string; noticeId?: string } {
  if (c?.kind === 'inspection') return { inspectionId: c.inspectionId };
  if (c?.kind === 'notice') return { noticeId: c.noticeId };
  return {};
}
