/**
 * The `routine-inspection` rule: on an active construction site an erosion and sediment control
 * inspection report is due every 7 x 24 h since the last one (law 001, maintenance during construction,
 * A(2)). The clock and its alerts: `evaluator.ts`.
 */
import { z } from 'zod';
import type { RuleModule } from '../module.ts';
import { firstVersion } from '../state.ts';
import { isErosionInspection } from '../util.ts';
import { type RoutineState, type RULE, routineEvaluator } from './evaluator.ts';

const params = {
  site: {
    routineInspectionDays: z
      .number()
      .positive()
      .default(7)
      .describe('Construction sites: days (of 24 h) between routine inspections (law 001).'),
  },
  device: {},
};

export const routineInspection: RuleModule<RoutineState, typeof RULE, typeof params> = {
  name: 'routine-inspection',
  law: '001, maintenance during construction, A(2)',
  params,
  binds: { perSite: (site) => (site.kind === 'construction' ? { devices: [] } : undefined) },
  state: { version: 1, upgrade: firstVersion },
  evaluator: routineEvaluator,
  // The law gives the 7-day report no extension.
  duty: {
    meets: isErosionInspection,
    closesBegunAlerts: false,
    extendable: false,
    responsible: ['developer'],
  },
  report: { section: 'routine', duty: true, pastDue: 'missing' },
};
