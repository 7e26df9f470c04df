/**
 * The deficiency remedies, one module for two rule ids served by one evaluator: `equipment-deficiency`
 * and `field-deficiency`, what the engineer's annual inspection of an advanced system (an alternative
 * system or a holding tank) finds to remedy, within 5 or 30 days of its submittal (law 000, 5.030 B 1 d).
 * A licensed engineer's letter may extend either deadline. The alarms' remedies are `../remedy/`.
 */
import { ADVANCED_SYSTEM_SITE_KINDS } from '../../../../shared/src/api/findings.ts';
import type { RuleModule } from '../module.ts';
import { firstVersion } from '../state.ts';
import { type DeficiencyRule, type DeficiencyState, deficiencyEvaluator } from './evaluator.ts';
import { params, paramWords } from './params.ts';
import { describeDeficiencyEvidence } from './words.ts';

const advanced: readonly string[] = ADVANCED_SYSTEM_SITE_KINDS;

export const deficiencyRemedy: RuleModule<DeficiencyState, DeficiencyRule, typeof params> = {
  name: 'deficiency-remedy',
  label: 'Deficiency remedy',
  description:
    "What the engineer's annual inspection finds is to be remedied: equipment within 5 days, the absorption field within 30, of its submittal.",
  words: {
    'equipment-deficiency': {
      label: 'Equipment deficiency (5 d)',
      description:
        "An equipment deficiency the engineer's annual inspection found is to be remedied within 5 days of its submittal.",
    },
    'field-deficiency': {
      label: 'Absorption field deficiency (30 d)',
      description:
        "An absorption field deficiency the engineer's annual inspection found is to be remedied within 30 days of its submittal.",
    },
  },
  law: '000, 5.030 B 1 d',
  params,
  siteParamWords: { kinds: [...advanced], params: paramWords },
  binds: { perSite: (site) => (advanced.includes(site.kind) ? { devices: [] } : undefined) },
  state: { version: 1, upgrade: firstVersion },
  evaluator: deficiencyEvaluator,
  describeEvidence: describeDeficiencyEvidence,
  // The law lets a licensed engineer's letter extend a remedy deadline. A later inspection naming the
  // deficiency remedied meets it (the evaluator resolves it), or a person closing it.
  duty: { meets: [], extendable: true, responsible: ['owner'] },
  report: { section: 'remedies', duty: true, pastDue: 'overdue' },
};
