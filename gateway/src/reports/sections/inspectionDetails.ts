/**
 * What an inspection of a wastewater system records beyond its notes, in the report's words (law 000):
 * the deficiencies the annual inspection found, each with its id and the days the law gives it, those a
 * visit found remedied, and a pump-out's hauler with the NYS DEC permit number (appendix VII), or that
 * none was recorded.
 */
import type { InspectionDto } from '../../../../shared/src/api/alerts.ts';
import { DEFICIENCY_KIND_LABELS, PUMPED_SITE_KINDS } from '../../../../shared/src/api/findings.ts';

const pumped: readonly string[] = PUMPED_SITE_KINDS;

/** A pump-out at a tank's site is no sediment cleanout: the kind in the site's words. */
export function pumpOutWord(kind: string, siteKind: string): string | undefined {
  return kind === 'cleanout' && pumped.includes(siteKind) ? 'Pump-out' : undefined;
}

/** Sentences for the inspection's details (none when it has none). */
export function detailSentences(x: InspectionDto, siteKind: string): string[] {
  const out: string[] = [];
  for (const d of x.deficiencies ?? [])
    out.push(
      `To remedy (${d.id}), ${DEFICIENCY_KIND_LABELS[d.kind as keyof typeof DEFICIENCY_KIND_LABELS]}: ${d.note}`,
    );
  if (x.remedied?.length) out.push(`Found remedied: ${x.remedied.join(', ')}.`);
  if (x.hauler) out.push(`Pumped by ${x.hauler.name}, NYS DEC permit ${x.hauler.permit}.`);
  else if (pumpOutWord(x.kind, siteKind)) out.push('Hauler and NYS DEC permit not recorded.');
  return out;
}
