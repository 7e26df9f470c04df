/**
 * The `holding-tank-pumpout` rule: a holding tank (sealed, no outlet; law 000, definitions) must be pumped
 * out, its contents disposed of as 2.010 B says, before it overflows. The high level, the float and the
 * pump-out seen in the data: `evaluator.ts`.
 */
import type { RuleModule } from '../module.ts';
import { firstVersion } from '../state.ts';
import { holdingCharts } from './charts.ts';
import { type HoldingState, holdingEvaluator, type RULE } from './evaluator.ts';
import { params, paramWords } from './params.ts';

export const holdingTankPumpout: RuleModule<HoldingState, typeof RULE, typeof params> = {
  name: 'holding-tank-pumpout',
  label: 'Holding tank pump-out',
  description:
    'A holding tank is to be pumped out before it overflows, once it reaches its high level or its float alarms.',
  law: '000, definitions and 2.010 B',
  params,
  siteParamWords: { kinds: ['holding-tank'], params: paramWords },
  binds: { perDevice: (d) => d.kind === 'holding-tank' },
  state: { version: 1, upgrade: firstVersion },
  evaluator: holdingEvaluator,
  // The pump-out shows in the level; the law sets no deadline to extend.
  duty: { meets: [], extendable: false, responsible: ['owner'] },
  report: { section: 'remedies', duty: true, pastDue: 'overdue' },
  charts: holdingCharts,
};
