/** The pump-out rule's part of a holding tank's charts: its high level, and the pump-outs seen in the data. */
import type { RuleCharts } from '../charts.ts';
import type { Params } from './params.ts';

export const holdingCharts: RuleCharts<Params> = {
  device(d) {
    if (d.highLevelIn === undefined) return undefined;
    return { lines: [{ measure: 'levelIn', value: d.highLevelIn, label: `High level ${d.highLevelIn} in` }] };
  },
  marks(alert) {
    const seen = alert.resolution?.evidence.pumpedOutSeenAt;
    if (typeof seen !== 'string') return [];
    return [{ measure: 'levelIn', at: Date.parse(seen), label: 'Pumped out' }];
  },
};
