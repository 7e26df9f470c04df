/** A developer-records alert's evidence in words: the record that is missing, or the one that met it. */
import { timeText } from '../../../../shared/src/words.ts';
import type { EvidenceWords } from '../module.ts';
import { evidenceReader } from '../util.ts';

/** Evidence keys holding times, with their labels. */
const TIMES: ReadonlyArray<[key: string, label: string]> = [
  ['since', 'Missing since'],
  ['expectedAt', 'Milestone expected'],
  ['noticeDueAt', 'Notice was due by'],
  ['acceptedAt', 'Final acceptance'],
  ['dueAt', 'One-year inspection due'],
  ['signedAt', 'Certification signed'],
  ['inspectedAt', 'One-year inspection made'],
  ['filedAt', 'Notice filed'],
  ['stabilizedAt', 'Final stabilization'],
];

export function describeDeveloperEvidence(ev: Readonly<Record<string, unknown>>, tz: string): EvidenceWords {
  const { str } = evidenceReader(ev);
  const lines: EvidenceWords['lines'] = [];
  const milestone = str('milestone');
  if (milestone) lines.push({ label: 'Milestone', text: milestone });
  for (const [key, label] of TIMES) {
    const t = str(key);
    if (t) lines.push({ label, text: timeText(t, tz) });
  }
  if (typeof ev.acceptable === 'boolean')
    lines.push({ label: 'Facilities', text: ev.acceptable ? 'found acceptable' : 'not found acceptable' });
  const by = str('recordedBy') ?? str('filedBy') ?? str('acceptedBy') ?? str('inspectedBy');
  if (by) lines.push({ label: 'Recorded by', text: by });
  return {
    lines,
    told: [
      'milestone',
      ...TIMES.map(([k]) => k),
      'acceptable',
      'recordedBy',
      'filedBy',
      'acceptedBy',
      'inspectedBy',
    ],
  };
}
