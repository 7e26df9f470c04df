/**
 * The `holding-tank-pumpout` rule: a holding tank (sealed, no outlet; law 000, definitions) must be pumped
 * out, its contents disposed of as 2.010 B says, before it overflows. The high level, the float and the
 * pump-out seen in the data: `evaluator.ts`.
 */
import { z } from 'zod';
import { holdParams } from '../hold.ts';
import type { RuleModule } from '../module.ts';
import { firstVersion } from '../state.ts';
import { type HoldingState, holdingEvaluator, type RULE } from './evaluator.ts';

const params = {
  site: holdParams,
  device: {
    highLevelIn: z
      .number()
      .positive()
      .optional()
      .describe('Holding tanks: the high level (in) that calls for a pump-out.'),
  },
};

export const holdingTankPumpout: RuleModule<HoldingState, typeof RULE, typeof params> = {
  name: 'holding-tank-pumpout',
  law: '000, definitions and 2.010 B',
  params,
  binds: { perDevice: (d) => d.kind === 'holding-tank' },
  state: { version: 1, upgrade: firstVersion },
  evaluator: holdingEvaluator,
  // The pump-out shows in the level; the law sets no deadline to extend.
  duty: { meets: () => false, closesBegunAlerts: false, extendable: false, responsible: ['owner'] },
  report: { section: 'remedies', duty: true, pastDue: 'overdue' },
};
