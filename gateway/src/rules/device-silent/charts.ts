/** The silence rule's part of every device's charts: how long a silence is before it is a gap in the evidence. */
import type { RuleCharts } from '../charts.ts';
import { MINUTE } from '../util.ts';
import { defaultSilentMinutes } from './evaluator.ts';
import type { Params } from './params.ts';

export const silentCharts: RuleCharts<Params> = {
  device: (d) => ({ gapMs: (d.silentAfterMinutes ?? defaultSilentMinutes(d.kind)) * MINUTE }),
};
