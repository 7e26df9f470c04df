/**
 * The `turbidity-contrast` rule: land development shall not cause a substantial visible contrast to
 * natural conditions in surface waters (law 001, water quality standards). An NTU margin over the
 * upstream background stands in for the visual test; every message says so. The comparison: `evaluator.ts`.
 */
import { z } from 'zod';
import type { RuleModule } from '../module.ts';
import { firstVersion } from '../state.ts';
import { type RULE, type TurbidityState, turbidityEvaluator, turbidityIds } from './evaluator.ts';

const params = {
  site: {
    turbidity: z
      .strictObject({
        marginNtu: z
          .number()
          .positive()
          .default(50)
          .describe('Outlet NTU above the background beyond which the contrast counts (a surrogate).'),
      })
      .prefault({})
      .describe('Turbidity: outlet against upstream background (law 001, water quality standards).'),
  },
  device: {},
};

export const turbidityContrast: RuleModule<TurbidityState, typeof RULE, typeof params> = {
  name: 'turbidity-contrast',
  law: '001, water quality standards',
  params,
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
  duty: { meets: () => false, closesBegunAlerts: false, extendable: false, responsible: ['developer'] },
  report: { section: 'other', duty: true, pastDue: 'overdue' },
};
