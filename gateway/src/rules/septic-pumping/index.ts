/**
 * The `septic-pumping` rule: a septic tank should be pumped every 2-3 years or when sludge and scum reach
 * one third of its liquid depth (law 000, appendix VII, a guideline: no deadline). The level and time
 * alerts and the pump-out: `evaluator.ts`.
 */
import type { RuleModule } from '../module.ts';
import { firstVersion } from '../state.ts';
import { PUMPOUT_KINDS, type RULE, type SepticState, septicEvaluator } from './evaluator.ts';
import { params } from './params.ts';

export const septicPumping: RuleModule<SepticState, typeof RULE, typeof params> = {
  name: 'septic-pumping',
  label: 'Septic tank pumping',
  description:
    'A septic tank should be pumped every few years, or once sludge and scum reach a third of its liquid depth.',
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
  duty: { meets: PUMPOUT_KINDS, extendable: false, responsible: ['owner'] },
  report: { section: 'remedies', duty: true, pastDue: 'overdue' },
};
