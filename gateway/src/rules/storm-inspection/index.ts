/**
 * The `storm-inspection` rule: a storm of 0.5 in or more at an active construction site calls for an
 * erosion and sediment control inspection within 24 h (law 001, maintenance during construction, A(2)).
 * Its evaluator also keeps the storm records of every rain gauge. The state and its events: `events.ts`;
 * the window of readings: `window.ts`; deriving the events: `fold.ts`; reporting their changes:
 * `reconcile.ts`; the alert's content: `alert.ts`; the evaluator and its handling of late data:
 * `evaluator.ts`; the state of release 0.1.0: `upgrade.ts`.
 */
import type { RuleModule } from '../module.ts';
import { EROSION_INSPECTIONS } from '../util.ts';
import { stormCharts } from './charts.ts';
import { stormEvaluator } from './evaluator.ts';
import { type RULE, STORM_STATE_VERSION, type StormState } from './events.ts';
import { lawFigures, params, paramWords } from './params.ts';
import { upgradeStormState } from './upgrade.ts';
import { describeStormEvidence } from './words.ts';

export const stormInspection: RuleModule<StormState, typeof RULE, typeof params> = {
  name: 'storm-inspection',
  label: 'Storm inspection',
  description:
    'A storm of 0.5 in or more at an active construction site calls for an erosion and sediment control inspection within 24 h.',
  law: '001, maintenance during construction, A(2)',
  params,
  siteParamWords: { kinds: ['construction'], params: paramWords },
  lawFigures,
  binds: { perDevice: (d) => d.kind === 'rain-gauge' },
  state: { version: STORM_STATE_VERSION, upgrade: upgradeStormState },
  evaluator: stormEvaluator,
  describeEvidence: describeStormEvidence,
  // The law gives the 24-hour inspection no extension. An inspection meets a storm's duty only when it
  // follows the storm (after its last tip, the storm ended): the evaluator, which knows the storm, closes
  // its alerts; the engine does not close every storm alert raised before an inspection.
  duty: {
    meets: EROSION_INSPECTIONS,
    // The developer's duty: met by the developer's side only, and only by an inspection of every practice.
    sides: ['developer'],
    everyPractice: true,
    extendable: false,
    noExtension: 'The 24-hour storm inspection cannot be extended: the law (001, A(2)) sets it.',
    responsible: ['developer'],
  },
  report: { section: 'other', duty: true, pastDue: 'missing' },
  storms: true,
  charts: stormCharts,
};
