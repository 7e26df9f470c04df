/**
 * The `storm-inspection` rule: a storm of 0.5 in or more at an active construction site calls for an
 * erosion and sediment control inspection within 24 h (law 001, maintenance during construction, A(2)).
 * Its evaluator also keeps the storm records of every rain gauge. The state and its events: `events.ts`;
 * the window of readings: `window.ts`; deriving the events: `fold.ts`; reporting their changes:
 * `reconcile.ts`; the alert's content: `alert.ts`; the evaluator and its handling of late data:
 * `evaluator.ts`; the state of release 0.1.0: `upgrade.ts`.
 */
import { z } from 'zod';
import type { RuleModule } from '../module.ts';
import { isErosionInspection } from '../util.ts';
import { stormEvaluator } from './evaluator.ts';
import { type RULE, STORM_STATE_VERSION, type StormState } from './events.ts';
import { upgradeStormState } from './upgrade.ts';

const params = {
  site: {
    storm: z
      .strictObject({
        thresholdIn: z
          .number()
          .positive()
          .default(0.5)
          .describe('The rain of one storm event (in) that calls for an inspection.'),
        interEventHours: z
          .number()
          .positive()
          .default(6)
          .describe('A dry period this long or longer separates two storm events.'),
        dueFrom: z
          .enum(['end', 'threshold'])
          .default('end')
          .describe('The due time counts from the last tip (`end`, moves while it rains) or the crossing.'),
        dueHours: z.number().positive().default(24).describe('Hours to inspect.'),
        settleMinutes: z
          .number()
          .min(0)
          .max(1440)
          .default(5)
          .describe('Late readings settle this long before a storm they make raises its alert; 0: at once.'),
      })
      .prefault({})
      .describe('Rain gauges at construction sites: the storm inspection (law 001).'),
  },
  device: {},
};

export const stormInspection: RuleModule<StormState, typeof RULE, typeof params> = {
  name: 'storm-inspection',
  law: '001, maintenance during construction, A(2)',
  params,
  binds: { perDevice: (d) => d.kind === 'rain-gauge' },
  state: { version: STORM_STATE_VERSION, upgrade: upgradeStormState },
  evaluator: stormEvaluator,
  // The law gives the 24-hour inspection no extension. One inspection covers every storm before it.
  duty: {
    meets: isErosionInspection,
    closesBegunAlerts: true,
    extendable: false,
    responsible: ['developer'],
  },
  report: { section: 'other', duty: true, pastDue: 'missing' },
  storms: true,
};
