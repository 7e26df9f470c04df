/**
 * The cleanout rule's part of a sediment trap's charts: sediment as a share of the design capacity (by
 * volume when the trap has a stage-storage table, as the rule reads it), the site's cleanout line (50 %),
 * and the cleanouts: seen in the data (the drop that closed an alert) or recorded as an inspection.
 */
import type { RuleCharts } from '../charts.ts';
import { fractionFilled } from './evaluator.ts';
import type { Params } from './params.ts';

export const sedimentCharts: RuleCharts<Params> = {
  device(d, site) {
    if (fractionFilled(d, 0) === undefined) return undefined;
    const pct = Math.round(site.sedimentCleanoutFraction * 1000) / 10;
    const basis = d.stageStorage ? ' (by volume)' : '';
    return {
      derive: [
        {
          measure: 'sedimentPct',
          from: 'sedimentIn',
          value: (depth) => {
            const f = fractionFilled(d, depth);
            return f === undefined ? undefined : f * 100;
          },
        },
      ],
      lines: [{ measure: 'sedimentPct', value: pct, label: `Cleanout at ${pct}% of capacity${basis}` }],
      inspections: { kinds: ['cleanout'], measure: 'sedimentPct', label: 'Cleanout recorded' },
    };
  },
  marks(alert) {
    const ev = alert.resolution?.evidence;
    if (!alert.resolvedAt || ev?.cleanout !== true) return [];
    return [{ measure: 'sedimentPct', at: Date.parse(alert.resolvedAt), label: 'Cleanout seen in the data' }];
  },
};
