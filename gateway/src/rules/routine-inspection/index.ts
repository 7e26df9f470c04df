/**
 * The `routine-inspection` rule: on an active construction site an erosion and sediment control
 * inspection report is due every 7 days since the last one, by the end of the 7th day after its day (law
 * 001, maintenance during construction, A(2)); the work's time is the measure (an inspection on the land). The clock and its alerts: `evaluator.ts`.
 */
import type { RuleModule } from '../module.ts';
import { EROSION_INSPECTIONS } from '../util.ts';
import {
  ROUTINE_STATE_VERSION,
  type RoutineState,
  type RULE,
  routineEvaluator,
  upgradeRoutineState,
} from './evaluator.ts';
import { lawFigures, params, paramWords } from './params.ts';
import { describeRoutineEvidence } from './words.ts';

export const routineInspection: RuleModule<RoutineState, typeof RULE, typeof params> = {
  name: 'routine-inspection',
  label: 'Routine 7-day inspection',
  description:
    'An active construction site needs an erosion and sediment control inspection report every 7 days.',
  law: '001, maintenance during construction, A(2)',
  params,
  siteParamWords: { kinds: ['construction'], params: paramWords },
  lawFigures,
  binds: { perSite: (site) => (site.kind === 'construction' ? { devices: [] } : undefined) },
  state: { version: ROUTINE_STATE_VERSION, upgrade: upgradeRoutineState },
  evaluator: routineEvaluator,
  describeEvidence: describeRoutineEvidence,
  // The law gives the 7-day report no extension.
  duty: {
    meets: EROSION_INSPECTIONS,
    // The inspection is made on the land: its time meets the duty, whenever it was sent.
    measure: 'work',
    // The developer's duty: met by the developer's side only, and only by an inspection of every practice.
    sides: ['developer'],
    everyPractice: true,
    extendable: false,
    noExtension: 'A routine inspection cannot be extended: the law sets the interval.',
    responsible: ['developer'],
  },
  report: { section: 'routine', duty: true, pastDue: 'missing' },
};
