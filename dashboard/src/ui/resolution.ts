/**
 * What closed an alert, in words, for the dialog and the history: "Resolved by the storm inspection by
 * Pat Smith on Dec 1, 2026, 9:00 AM EST", "Resolved by the officer's approval of notice of violation
 * no. 2 (…)", "Resolved from the readings: device rg-1's reading of …" (shared/src/api/resolutionWords.ts),
 * with a link to the record it rests on. A resolution recorded before causes were kept reads as before.
 */
import type { ResolutionCause } from '../../../shared/src/api/resolutionCause.ts';
import { causeRecord, resolvedWords } from '../../../shared/src/api/resolutionWords.ts';
import { h } from './dom.js';
import { formatTime } from './format.js';

/** A cause as the API sent it (a history entry's detail is untyped), or undefined. */
export function causeOf(v: unknown): ResolutionCause | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  return typeof (v as { kind?: unknown }).kind === 'string' ? (v as ResolutionCause) : undefined;
}

/** "Resolved by …" for a resolution (`how`, `by`, `cause`), times in the zone `tz`. */
export function resolvedSentence(r: { how?: unknown; by?: string; cause?: unknown }, tz: string): string {
  return resolvedWords({ how: r.how, by: r.by, cause: causeOf(r.cause) }, (iso) => formatTime(iso, tz));
}

/**
 * For a resolution that rests on a record: a link to the inspection's page (`#/inspections/<id>`), or to
 * the site's page where its notices are kept, naming the record (`data-inspection`, `data-notice`); none
 * for the readings, a person or the schedule.
 */
export function causeLink(siteId: string, cause: unknown) {
  const c = causeOf(cause);
  const { inspectionId, noticeId } = causeRecord(c);
  if (!inspectionId && !noticeId) return null;
  return h(
    'a',
    {
      class: 'cause-link',
      href: inspectionId
        ? `#/inspections/${encodeURIComponent(inspectionId)}`
        : `#/sites/${encodeURIComponent(siteId)}`,
      ...(inspectionId ? { 'data-inspection': inspectionId } : { 'data-notice': noticeId }),
    },
    inspectionId ? 'Open the inspection' : "Open the site's page, where its notices are kept",
  );
}
