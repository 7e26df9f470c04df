/** A sediment-cleanout alert's evidence in words: the depth, how much of the capacity it takes, the threshold. */
import { numberText, timeText } from '../../../../shared/src/words.ts';
import type { EvidenceWords } from '../module.ts';
import { evidenceReader } from '../util.ts';

const pct = (f: number) => `${numberText(Math.round(f * 1000) / 10)}%`;

export function describeSedimentEvidence(ev: Readonly<Record<string, unknown>>, tz: string): EvidenceWords {
  const { str, num, bool } = evidenceReader(ev);
  const lines: EvidenceWords['lines'] = [];
  const depth = num('depthIn');
  const frac = num('fraction');
  const at = str('at');
  const design = num('designDepthIn');
  if (depth !== undefined)
    lines.push({
      label: 'Sediment',
      text:
        `${numberText(depth)} in${at ? ` on ${timeText(at, tz)}` : ''}` +
        (frac !== undefined
          ? `: ${pct(frac)} of the design capacity lost${bool('stageStorage') ? ' (by the stage-storage table)' : ''}`
          : ''),
    });
  if (design !== undefined) lines.push({ label: 'Design depth', text: `${numberText(design)} in` });
  const threshold = num('threshold');
  if (threshold !== undefined)
    lines.push({ label: 'Cleanout threshold', text: `${pct(threshold)} of the capacity` });
  return { lines, told: ['depthIn', 'fraction', 'at', 'designDepthIn', 'stageStorage', 'threshold'] };
}
