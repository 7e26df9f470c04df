/**
 * The turbidity rule's part of an outlet's charts: the upstream background plus the site's margin, the
 * surrogate line the outlet is compared with (the legal test is visual).
 */
import type { RuleCharts } from '../charts.ts';
import { turbidityIds } from './evaluator.ts';
import type { Params } from './params.ts';

export const turbidityCharts: RuleCharts<Params> = {
  device(d, site) {
    if (d.role !== 'outlet') return undefined;
    const margin = site.turbidity.marginNtu;
    return {
      references: [
        {
          measure: 'turbidityNtu',
          label: `Background + ${margin} NTU`,
          devices: turbidityIds(site, 'background'),
          reading: 'turbidityNtu',
          offset: margin,
        },
      ],
    };
  },
};
