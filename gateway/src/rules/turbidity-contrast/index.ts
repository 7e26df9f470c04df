/**
 * The `turbidity-contrast` rule: land development shall not cause a substantial visible contrast to
 * natural conditions in surface waters (law 001, water quality standards). An NTU margin over the
 * upstream background stands in for the visual test; every message says so. The comparison: `evaluator.ts`.
 */
import type { RuleModule } from '../module.ts';
import { firstVersion } from '../state.ts';
import { turbidityCharts } from './charts.ts';
import { type RULE, type TurbidityState, turbidityEvaluator, turbidityIds } from './evaluator.ts';
import { params, paramWords } from './params.ts';

export const turbidityContrast: RuleModule<TurbidityState, typeof RULE, typeof params> = {
  name: 'turbidity-contrast',
  label: 'Turbidity contrast',
  description:
    'Outlet water must not be much more turbid than the upstream background (an NTU margin stands in for the visual test).',
  law: '001, water quality standards',
  params,
  siteParamWords: { kinds: ['construction'], params: paramWords },
  binds: {
    // Site-level: it compares the outlet readings with the background readings.
    perSite: (site) => {
      const outlets = turbidityIds(site, 'outlet');
      const backgrounds = turbidityIds(site, 'background');
      return outlets.length > 0 && backgrounds.length > 0
        ? { devices: [...outlets, ...backgrounds] }
        : undefined;
    },
  },
  state: { version: 1, upgrade: firstVersion },
  evaluator: turbidityEvaluator,
  duty: { meets: [], extendable: false, responsible: ['developer'] },
  report: { section: 'other', duty: true, pastDue: 'overdue' },
  charts: turbidityCharts,
};
