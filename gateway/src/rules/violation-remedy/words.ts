/** A violation-remedy alert's evidence in words: the notice, its nature, the schedule and the approval. */
import { timeText } from '../../../../shared/src/words.ts';
import type { EvidenceWords } from '../module.ts';
import { evidenceReader } from '../util.ts';

export function describeViolationEvidence(ev: Readonly<Record<string, unknown>>, tz: string): EvidenceWords {
  const { str } = evidenceReader(ev);
  const lines: EvidenceWords['lines'] = [];
  const nature = str('nature');
  if (nature) lines.push({ label: 'Violation', text: nature });
  const issuedAt = str('issuedAt');
  const issuedBy = str('issuedBy');
  if (issuedAt)
    lines.push({
      label: 'Notice issued',
      text: `${timeText(issuedAt, tz)}${issuedBy ? ` by ${issuedBy}` : ''}`,
    });
  const due = str('dueAt');
  if (due) lines.push({ label: 'Remedial measures due', text: timeText(due, tz) });
  const approvedAt = str('approvedAt');
  const approvedBy = str('approvedBy');
  if (approvedAt)
    lines.push({
      label: 'Correction approved',
      text: `${timeText(approvedAt, tz)}${approvedBy ? ` by ${approvedBy}` : ''}`,
    });
  const reversedAt = str('reversedAt');
  if (reversedAt) lines.push({ label: 'Reversed on appeal', text: timeText(reversedAt, tz) });
  return {
    lines,
    told: [
      'reversedAt',
      'reversedBy',
      'violationId',
      'nature',
      'issuedAt',
      'issuedBy',
      'dueAt',
      'approvedAt',
      'approvedBy',
      'withinDeadline',
    ],
  };
}
