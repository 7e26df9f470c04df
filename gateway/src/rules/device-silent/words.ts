/** A silent device's evidence in words: since when there is no evidence, its last reading, its limit. */
import { timeText } from '../../../../shared/src/words.ts';
import type { EvidenceWords } from '../module.ts';
import { evidenceReader } from '../util.ts';

export function describeSilentEvidence(ev: Readonly<Record<string, unknown>>, tz: string): EvidenceWords {
  const { str, num } = evidenceReader(ev);
  const lines: EvidenceWords['lines'] = [];
  const since = str('noEvidenceSince');
  if (since) lines.push({ label: 'No evidence since', text: timeText(since, tz) });
  if ('lastReadingAt' in ev) {
    const last = str('lastReadingAt');
    lines.push({
      label: 'Last reading',
      text: last ? timeText(last, tz) : 'none on record: it has not reported since monitoring began',
    });
  }
  const limit = num('silentAfterMinutes');
  if (limit !== undefined)
    lines.push({ label: 'Counted silent after', text: `${limit} min without a message` });
  return { lines, told: ['noEvidenceSince', 'lastReadingAt', 'silentAfterMinutes'] };
}
