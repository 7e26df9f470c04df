/**
 * A storm alert's evidence in words: the storm (total, gauge, start and end), the threshold crossing (and
 * when the crossing reading reached the gateway, when that was later), the inspection's due time and why.
 */
import { numberText, timeText } from '../../../../shared/src/words.ts';
import type { EvidenceWords } from '../module.ts';
import { evidenceReader } from '../util.ts';

export function describeStormEvidence(ev: Readonly<Record<string, unknown>>, tz: string): EvidenceWords {
  const { str, num, bool } = evidenceReader(ev);
  const lines: EvidenceWords['lines'] = [];
  const at = (k: string) => {
    const v = str(k);
    return v === undefined ? undefined : timeText(v, tz);
  };
  const inches = num('inches');
  const tips = num('tips');
  const ipt = num('inchesPerTip');
  const closed = bool('closed');
  if (inches !== undefined) {
    const counted =
      tips !== undefined ? ` (${tips} tips${ipt !== undefined ? ` of ${numberText(ipt)} in` : ''})` : '';
    const gauge = str('deviceId') ? ` at rain gauge ${str('deviceId')}` : '';
    const span = at('start') && at('end') ? `, ${at('start')} to ${at('end')}` : '';
    const state = closed === false ? '; still raining' : closed ? '; the rain has ended' : '';
    lines.push({ label: 'Storm', text: `${inches.toFixed(2)} in${counted}${gauge}${span}${state}` });
  }
  const thr = num('thresholdIn');
  const thrTips = num('thresholdTips');
  if (at('thresholdAt')) {
    const received = str('crossingReceivedAt');
    const crossed = str('thresholdAt');
    // A crossing reading that arrived late (buffered by the gauge) says so; a live one needs no second time.
    const late = received && crossed && Date.parse(received) - Date.parse(crossed) >= 60_000;
    lines.push({
      label: 'Threshold',
      text:
        `crossed ${thr !== undefined ? `${numberText(thr)} in` : 'the threshold'}` +
        `${thrTips !== undefined ? ` (${thrTips} tips)` : ''} at ${at('thresholdAt')}` +
        (late ? `; that reading reached the gateway at ${at('crossingReceivedAt')}` : ''),
    });
  } else if (thr !== undefined)
    lines.push({ label: 'Threshold', text: `${numberText(thr)} in, not reached` });
  const hours = num('dueHours') ?? 24;
  if (at('dueAt')) {
    const why =
      str('dueFrom') === 'threshold'
        ? `${hours} h after the threshold was crossed`
        : closed
          ? `${hours} h after the rain ended`
          : `${hours} h after the last tip; it moves while it still rains`;
    lines.push({ label: 'Inspection due', text: `${at('dueAt')} (${why})` });
  }
  const uncertain = ev.timingUncertain as { readingAt?: unknown; note?: unknown } | undefined;
  if (uncertain && typeof uncertain === 'object')
    lines.push({
      label: 'Timing',
      text: `uncertain: ${typeof uncertain.note === 'string' ? uncertain.note : 'several tips were reported at once'}${
        typeof uncertain.readingAt === 'string' ? ` (reading of ${timeText(uncertain.readingAt, tz)})` : ''
      }`,
    });
  // Inspections made while it still rained: shown with the storm, with the rain by then; they meet nothing.
  const during = Array.isArray(ev.inspectedDuring)
    ? (ev.inspectedDuring as Array<Record<string, unknown>>)
    : [];
  for (const d of during) {
    if (typeof d.inspectedAt !== 'string') continue;
    const rain = typeof d.inches === 'number' ? `, at ${d.inches.toFixed(2)} in` : '';
    lines.push({
      label: 'Inspected during the storm',
      text: `${timeText(d.inspectedAt, tz)}${rain}: made while it still rained, it does not count; an inspection after the rain ends is still due`,
    });
  }
  const awaiting = ev.inspectedAfterLastTip as { inspectedAt?: unknown } | undefined;
  if (awaiting && typeof awaiting.inspectedAt === 'string')
    lines.push({
      label: 'Inspected after the last tip',
      text: `${timeText(awaiting.inspectedAt, tz)}: it counts once the dry period that ends the storm has passed`,
    });
  if (bool('withdrawn'))
    lines.push({ label: 'Withdrawn', text: 'late readings show this storm did not reach the threshold' });
  return {
    lines,
    told: [
      'eventId',
      'deviceId',
      'start',
      'end',
      'tips',
      'inches',
      'inchesPerTip',
      'thresholdIn',
      'thresholdTips',
      'dueFrom',
      'dueHours',
      'closed',
      'thresholdAt',
      'crossingReceivedAt',
      'dueAt',
      'timingUncertain',
      'inspectedDuring',
      'inspectedAfterLastTip',
      'withdrawn',
    ],
  };
}
