/** A deficiency's evidence in words: what was found, by which inspection, and the remedy's deadline. */
import { endOfDayInWords } from '../../../../shared/src/days.ts';
import { timeText } from '../../../../shared/src/words.ts';
import type { EvidenceWords } from '../module.ts';
import { evidenceReader } from '../util.ts';

export function describeDeficiencyEvidence(ev: Readonly<Record<string, unknown>>, tz: string): EvidenceWords {
  const { str, num } = evidenceReader(ev);
  const zone = str('timezone') ?? tz;
  const lines: EvidenceWords['lines'] = [];
  const note = str('note');
  const kind = str('kind');
  if (note)
    lines.push({
      label: kind === 'field' ? 'Absorption field deficiency' : 'Equipment deficiency',
      text: note,
    });
  const inspected = str('inspectedAt');
  const received = str('receivedAt');
  if (received)
    lines.push({
      label: 'Annual inspection',
      text: `submitted ${timeText(received, zone)}${inspected && inspected !== received ? `, made ${timeText(inspected, zone)}` : ''}`,
    });
  const due = str('dueAt');
  const days = num('remedyDays');
  if (due)
    lines.push({
      label: 'Remedy due',
      text: `by ${endOfDayInWords(Date.parse(due), zone)}${
        days !== undefined ? ` (within ${days} days of the submittal, its own day not counted)` : ''
      }`,
    });
  const remediedAt = str('remediedAt');
  if (remediedAt) lines.push({ label: 'Found remedied', text: timeText(remediedAt, zone) });
  return {
    lines,
    told: [
      'deficiency',
      'kind',
      'note',
      'inspectionId',
      'inspectedAt',
      'receivedAt',
      'remedyDays',
      'dueAt',
      'timezone',
      'remediedBy',
      'remediedAt',
    ],
  };
}
