/**
 * The `septic-pumping` rule: a septic tank should be pumped every 2-3 years or when sludge and scum reach
 * one third of its liquid depth (law 000, appendix VII, a guideline: no deadline). The level and time
 * alerts and the pump-out: `evaluator.ts`.
 */
import { z } from 'zod';
import type { RuleModule } from '../module.ts';
import { firstVersion } from '../state.ts';
import { isPumpOut, type RULE, type SepticState, septicEvaluator } from './evaluator.ts';

const params = {
  site: {
    septicPumping: z
      .strictObject({
        fraction: z
          .number()
          .gt(0)
          .lt(1)
          .default(1 / 3)
          .describe("The share of the tank's liquid depth sludge and scum may fill."),
        maxYears: z.number().positive().default(3).describe('Years between pump-outs at most.'),
        lastPumpedAt: z.iso
          .datetime({ offset: true })
          .optional()
          .describe('The last pump-out before the gateway knew the tank.'),
      })
      .prefault({})
      .describe('Septic tanks: when to pump (law 000, appendix VII, a guideline).'),
  },
  device: {},
};

export const septicPumping: RuleModule<SepticState, typeof RULE, typeof params> = {
  name: 'septic-pumping',
  law: '000, appendix VII',
  params,
  binds: {
    perDevice: (d, site) =>
      (d.kind === 'septic-panel' || d.kind === 'septic-tank') &&
      (site.kind === 'alternative-system' || site.kind === 'septic'),
  },
  state: { version: 1, upgrade: firstVersion },
  evaluator: septicEvaluator,
  // A `cleanout` recorded at a septic site is a pump-out; a guideline has no deadline to extend.
  duty: { meets: isPumpOut, closesBegunAlerts: false, extendable: false, responsible: ['owner'] },
  report: { section: 'remedies', duty: true, pastDue: 'overdue' },
};
