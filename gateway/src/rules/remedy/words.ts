/** A remedy alert's evidence in words: which alarm, since when, and the remedy deadline. */
import { timeText } from '../../../../shared/src/words.ts';
import type { EvidenceWords } from '../module.ts';
import { evidenceReader } from '../util.ts';
import { ALARM_LABELS } from './evaluator.ts';

export function describeRemedyEvidence(ev: Readonly<Record<string, unknown>>, tz: string): EvidenceWords {
  const { str, num } = evidenceReader(ev);
  const lines: EvidenceWords['lines'] = [];
  const input = str('input');
  const name = input && input in ALARM_LABELS ? ALARM_LABELS[input as keyof typeof ALARM_LABELS] : input;
  const began = str('began');
  const hold = num('holdSeconds');
  if (name)
    lines.push({
      label: 'Alarm',
      text: `${name}${began ? ` since ${timeText(began, tz)}` : ''}${
        hold !== undefined ? ` (it counts once it has held for ${hold} s)` : ''
      }`,
    });
  const due = str('dueAt');
  const days = num('remedyDays');
  if (due)
    lines.push({
      label: 'Remedy due',
      text: `${timeText(due, tz)}${days !== undefined ? ` (within ${days} days of the alarm's start)` : ''}`,
    });
  const remedied = str('remedied');
  if (remedied) lines.push({ label: 'Back to normal', text: timeText(remedied, tz) });
  if (ev.reopened === true)
    lines.push({
      label: 'Reopened',
      text: 'late readings showed the fault was still on after it was resolved',
    });
  return { lines, told: ['input', 'began', 'holdSeconds', 'dueAt', 'remedyDays', 'remedied', 'reopened'] };
}
