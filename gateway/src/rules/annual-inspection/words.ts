/** An annual-inspection alert's evidence in words: the year, the town's letter and the deadline. */
import { dateInWords, lastDayOf } from '../../../../shared/src/days.ts';
import { timeText } from '../../../../shared/src/words.ts';
import type { EvidenceWords } from '../module.ts';
import { evidenceReader } from '../util.ts';

export function describeAnnualEvidence(ev: Readonly<Record<string, unknown>>, tz: string): EvidenceWords {
  const { str, num } = evidenceReader(ev);
  const zone = str('timezone') ?? tz;
  const lines: EvidenceWords['lines'] = [];
  const year = num('year');
  if (year !== undefined) lines.push({ label: 'Year', text: String(year) });
  const letter = str('letterAt');
  if (letter)
    lines.push({
      label: "Town's letter",
      text: `${timeText(letter, zone)}${ev.letterOnRecord === true ? " (the site's history on record)" : ''}`,
    });
  const due = str('dueAt');
  const within = str('withinAt');
  const notAfter = str('notAfterAt');
  // withinAt and notAfterAt are the first late instants: their last whole days are the day before.
  const lastDay = (at: string) => dateInWords(lastDayOf(Date.parse(at), zone));
  if (due)
    lines.push({
      label: 'Inspection form due',
      text:
        timeText(due, zone) +
        (within && notAfter && letter && Date.parse(notAfter) <= Date.parse(letter)
          ? ` (the end of ${lastDay(within)}, counted from the letter: the fixed date fell before it)`
          : within && notAfter
            ? ` (the ${str('rule') === 'later' ? 'later' : 'earlier'} of the end of ${lastDay(within)}, after the letter, and the end of ${lastDay(notAfter)}, the town's reading)`
            : ''),
    });
  return {
    lines,
    told: ['year', 'letterAt', 'dueAt', 'withinAt', 'notAfterAt', 'rule', 'timezone', 'letterOnRecord'],
  };
}
