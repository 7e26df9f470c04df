/**
 * The `violation-remedy` rule: the remedial measures a notice of violation orders are a duty with the
 * notice's time schedule (town law 001, Enforcement, A(4)). Opened when the notice is issued, resolved when
 * the officer approves the correction. The evaluator: `evaluator.ts`; the notices: `enforcement/violations.ts`.
 */
import type { RuleModule } from '../module.ts';
import { firstVersion } from '../state.ts';
import { type RULE, type ViolationRemedyState, violationRemedyEvaluator } from './evaluator.ts';
import { params } from './params.ts';
import { describeViolationEvidence } from './words.ts';

export const violationRemedy: RuleModule<ViolationRemedyState, typeof RULE, typeof params> = {
  name: 'violation-remedy',
  label: 'Notice of violation: remedy',
  description:
    'The remedial measures a notice of violation orders are to be completed by the time it sets, and approved by the officer.',
  law: '001, Enforcement, A(4); 000, Section 5.100 B',
  params,
  // Every site: a construction site's notices (law 001) and a wastewater system's orders (law 000).
  binds: { perSite: () => ({ devices: [] }) },
  state: { version: 1, upgrade: firstVersion },
  evaluator: violationRemedyEvaluator,
  describeEvidence: describeViolationEvidence,
  duty: {
    meets: [],
    extendable: false,
    noExtension:
      "A notice of violation's schedule cannot be extended by an engineer's letter: the officer's notice sets it.",
    noManualResolve:
      "This duty closes when the officer approves the correction on the notice of violation itself (the site's page, Notices of violation), not by hand.",
    responsible: ['developer', 'owner'],
  },
  report: { section: 'remedies', duty: true, pastDue: 'overdue' },
};
