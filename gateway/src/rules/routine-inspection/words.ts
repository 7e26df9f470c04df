/** A routine-inspection alert's evidence in words: the due time, the period, the last inspection. */
import { timeText } from '../../../../shared/src/words.ts';
import type { EvidenceWords } from '../module.ts';
import { evidenceReader } from '../util.ts';

export function describeRoutineEvidence(ev: Readonly<Record<string, unknown>>, tz: string): EvidenceWords {
  const { str, num } = evidenceReader(ev);
  const lines: EvidenceWords['lines'] = [];
  const days = num('days');
  const due = str('dueAt');
  const start = str('periodStart');
  if (due)
    lines.push({
      label: 'Inspection report due',
      text: `${timeText(due, tz)}${days !== undefined ? ` (every ${days} days, weekends included)` : ''}`,
    });
  if (start) lines.push({ label: 'Period began', text: timeText(start, tz) });
  if ('lastInspection' in ev) {
    const last = ev.lastInspection as { at?: unknown; kind?: unknown; onRecord?: unknown } | null;
    lines.push({
      label: 'Last inspection',
      text:
        last && typeof last.at === 'string'
          ? `${typeof last.kind === 'string' ? `${last.kind} inspection, ` : ''}${timeText(last.at, tz)}${last.onRecord === true ? " (the site's history on record)" : ''}`
          : 'none on record: the period began when monitoring did',
    });
  }
  if (ev.inactive === true)
    lines.push({ label: 'Site', text: 'no longer active: no routine inspection is due' });
  return { lines, told: ['dueAt', 'days', 'periodStart', 'lastInspection', 'inactive'] };
}
