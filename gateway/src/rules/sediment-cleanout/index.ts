/**
 * The `sediment-cleanout` rule: sediment shall be removed from a trap or pond whenever its design
 * capacity has been reduced by 50% (law 001, maintenance during construction, A(1)). Capacity, the
 * alert and the cleanout seen in the data: `evaluator.ts`.
 */
import type { RuleModule } from '../module.ts';
import { firstVersion } from '../state.ts';
import { sedimentCharts } from './charts.ts';
import { type RULE, type SedimentState, sedimentEvaluator } from './evaluator.ts';
import { params, paramWords } from './params.ts';
import { describeSedimentEvidence } from './words.ts';

export const sedimentCleanout: RuleModule<SedimentState, typeof RULE, typeof params> = {
  name: 'sediment-cleanout',
  label: 'Sediment cleanout',
  description: 'Sediment is to be removed from a trap or pond once it has lost half of its design capacity.',
  law: '001, maintenance during construction, A(1)',
  params,
  siteParamWords: { kinds: ['construction'], params: paramWords },
  checkDevice(d, problem) {
    if (d.kind === 'sediment-trap' && d.designDepthIn === undefined && d.stageStorage === undefined)
      problem('designDepthIn', 'a sediment trap needs designDepthIn or stageStorage');
  },
  binds: { perDevice: (d) => d.kind === 'sediment-trap' },
  state: { version: 1, upgrade: firstVersion },
  evaluator: sedimentEvaluator,
  describeEvidence: describeSedimentEvidence,
  // "Whenever": no deadline to extend; a cleanout shows in the data, not as an inspection.
  duty: { meets: [], extendable: false, responsible: ['developer'] },
  report: { section: 'cleanouts', duty: true, pastDue: 'overdue' },
  charts: sedimentCharts,
};
