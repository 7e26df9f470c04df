/**
 * The `device-clock` rule, the product's own: a device whose clock runs ahead has its readings kept in
 * quarantine, and its site's people are told at once (`evaluator.ts`).
 */
import type { RuleModule } from '../module.ts';
import { firstVersion } from '../state.ts';
import { type ClockState, clockEvaluator, type RULE } from './evaluator.ts';

const params = { site: {}, device: {} };

export const deviceClock: RuleModule<ClockState, typeof RULE, typeof params> = {
  name: 'device-clock',
  label: 'Device clock ahead (readings in quarantine)',
  description:
    'A device whose clock runs ahead has its readings kept in quarantine until its clock is corrected.',
  law: "the product's own: a reading at a wrong time is no evidence until corrected",
  params,
  binds: { perDevice: () => true },
  state: { version: 1, upgrade: firstVersion },
  evaluator: clockEvaluator,
  duty: {
    meets: [],
    extendable: false,
    responsible: ['owner', 'developer'],
  },
  // A device problem is no duty: listed with the other alerts, counted apart.
  report: { section: 'other', duty: false, pastDue: 'overdue' },
};
