/**
 * The `annual-inspection` rule: each alternative system needs a licensed engineer's inspection every
 * year, submitted within 60 days of the town's June letter or before September 1, the earlier by default
 * (law 000, 5.030 B 1 d). The schedule and its alerts: `evaluator.ts`.
 */
import { ADVANCED_SYSTEM_SITE_KINDS } from '../../../../shared/src/api/findings.ts';
import type { RuleModule } from '../module.ts';
import {
  ANNUAL_INSPECTIONS,
  ANNUAL_STATE_VERSION,
  type AnnualState,
  annualEvaluator,
  MEASURE,
  type RULE,
  upgradeAnnualState,
} from './evaluator.ts';
import { lawFigures, params, paramWords } from './params.ts';
import { reportReading } from './reading.ts';
import { describeAnnualEvidence } from './words.ts';

/**
 * The site kinds with advanced systems that need the engineer's annual inspection: alternative systems,
 * and holding tanks, which 5.030 B 1 b lists among the advanced systems.
 */
const ANNUAL_SITE_KINDS: readonly string[] = ADVANCED_SYSTEM_SITE_KINDS;

export const annualInspection: RuleModule<AnnualState, typeof RULE, typeof params> = {
  name: 'annual-inspection',
  label: 'Annual inspection',
  description:
    "An alternative system or a holding tank needs a licensed engineer's inspection every year, submitted by the town's deadline.",
  law: '000, 5.030 B 1 d',
  params,
  siteParamWords: { kinds: [...ANNUAL_SITE_KINDS], params: paramWords },
  lawFigures,
  // Holding tanks are advanced systems too (5.030 B 1 b): they need the engineer's annual inspection.
  binds: { perSite: (site) => (ANNUAL_SITE_KINDS.includes(site.kind) ? { devices: [] } : undefined) },
  state: { version: ANNUAL_STATE_VERSION, upgrade: upgradeAnnualState },
  evaluator: annualEvaluator,
  describeEvidence: describeAnnualEvidence,
  // The law's "within 60 days or prior to September 1st" leaves no room for an extension.
  // The engineer's report is "submitted to the Town": its submittal meets the deadline.
  duty: {
    meets: ANNUAL_INSPECTIONS,
    measure: MEASURE,
    extendable: false,
    noExtension:
      "The annual inspection cannot be extended: the law sets its date (within 60 days of the town's letter, or before September 1).",
    responsible: ['owner', 'engineer'],
  },
  report: { section: 'remedies', duty: true, pastDue: 'overdue' },
  deadlineReading: (site) => reportReading(site.annualInspection),
};
