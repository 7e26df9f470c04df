/**
 * The `developer-records` rules: the developer's records of a construction site that town law 001 asks
 * for, as duties: a contractor's certification on file and the SWPPP kept on site while work goes on, the
 * one-year inspection after final acceptance, and a notice for every milestone the site expects. One
 * evaluator per construction site for four rule ids (`evaluator.ts`); the records:
 * `enforcement/siteRecords.ts`.
 */
import type { RuleModule } from '../module.ts';
import { firstVersion } from '../state.ts';
import { type DeveloperRecordsState, type DeveloperRule, developerRecordsEvaluator } from './evaluator.ts';
import { params } from './params.ts';
import { describeDeveloperEvidence } from './words.ts';

export const developerRecords: RuleModule<DeveloperRecordsState, DeveloperRule, typeof params> = {
  name: 'developer-records',
  label: "Developer's records",
  description:
    "The developer's records the law asks for: contractors' certifications, the SWPPP on site, milestone notices, the one-year inspection.",
  words: {
    'contractor-certification': {
      label: "Contractor's certification",
      description:
        "Each contractor signs the law's certification before any work: none on file while work goes on is a duty.",
    },
    'swppp-on-site': {
      label: 'SWPPP on site',
      description:
        'A copy of the SWPPP is kept at the site from the start of construction to final stabilization.',
    },
    'acceptance-inspection': {
      label: 'One-year inspection',
      description: "The town's one-year inspection of the facilities, due a year after final acceptance.",
    },
    'milestone-notice': {
      label: 'Milestone without notice',
      description: 'A milestone the site expected has passed with no notice to the town 48 hours before it.',
    },
  },
  law: '001, SWPPP certification; Erosion and sediment control inspection, A(1); Construction completion guarantee',
  params,
  binds: { perSite: (site) => (site.kind === 'construction' ? { devices: [] } : undefined) },
  state: { version: 1, upgrade: firstVersion },
  evaluator: developerRecordsEvaluator,
  describeEvidence: describeDeveloperEvidence,
  duty: {
    meets: [],
    extendable: false,
    noExtension: "The law sets these records' times; an engineer's letter does not extend them.",
    noManualResolve: "This duty closes when the record is entered on the site's page (Records), not by hand.",
    responsible: ['developer', 'owner', 'officer'],
  },
  report: { section: 'other', duty: true, pastDue: 'overdue' },
};
