/**
 * The `device-silent` rule, the product's own: a device that has sent nothing for longer than it should
 * leaves a gap in the evidence (a silent gauge is not a dry day). Silence, its alert and the gap on
 * record: `evaluator.ts`.
 */
import { z } from 'zod';
import type { RuleModule } from '../module.ts';
import { firstVersion } from '../state.ts';
import { defaultSilentMinutes, type RULE, type SilentState, silentEvaluator } from './evaluator.ts';

const params = {
  site: {},
  device: {
    silentAfterMinutes: z
      .number()
      .positive()
      .optional()
      .describe(
        'Minutes without a message before a silence is recorded (default 60 for rain gauges, else 120).',
      ),
  },
};

export const deviceSilent: RuleModule<SilentState, typeof RULE, typeof params> = {
  name: 'device-silent',
  law: "the product's own: a silent gauge is not a dry day",
  params,
  deviceView: (d) => ({ silentAfterMinutes: d.silentAfterMinutes ?? defaultSilentMinutes(d.kind) }),
  binds: { perDevice: () => true },
  state: { version: 1, upgrade: firstVersion },
  evaluator: silentEvaluator,
  duty: {
    meets: () => false,
    closesBegunAlerts: false,
    extendable: false,
    responsible: ['owner', 'developer'],
  },
  // A gap is no duty: it is listed, and counted apart.
  report: { section: 'gaps', duty: false, pastDue: 'overdue' },
};
