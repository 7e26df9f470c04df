/**
 * The `device-silent` rule, the product's own: a device that has sent nothing for longer than it should
 * leaves a gap in the evidence (a silent gauge is not a dry day). Silence, its alert and the gap on
 * record: `evaluator.ts`.
 */
import type { RuleModule } from '../module.ts';
import { firstVersion } from '../state.ts';
import { silentCharts } from './charts.ts';
import { defaultSilentMinutes, type RULE, type SilentState, silentEvaluator } from './evaluator.ts';
import { params } from './params.ts';
import { describeSilentEvidence } from './words.ts';

export const deviceSilent: RuleModule<SilentState, typeof RULE, typeof params> = {
  name: 'device-silent',
  label: 'Device silent (gap in evidence)',
  description: 'A device that has sent nothing for longer than it should leaves a gap in the evidence.',
  law: "the product's own: a silent gauge is not a dry day",
  params,
  deviceView: (d) => ({ silentAfterMinutes: d.silentAfterMinutes ?? defaultSilentMinutes(d.kind) }),
  binds: { perDevice: () => true },
  state: { version: 1, upgrade: firstVersion },
  evaluator: silentEvaluator,
  describeEvidence: describeSilentEvidence,
  duty: {
    meets: [],
    extendable: false,
    responsible: ['owner', 'developer'],
  },
  // A gap is no duty: it is listed, and counted apart.
  report: { section: 'gaps', duty: false, pastDue: 'overdue' },
  charts: silentCharts,
};
