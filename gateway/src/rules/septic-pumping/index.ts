/**
 * The `septic-pumping` rule: a septic tank should be pumped every 2-3 years or when sludge and scum reach
 * one third of its liquid depth (law 000, appendix VII, a guideline). The level and time alerts and the
 * pump-out: `evaluator.ts`; the duty of a site with no tank device: `site.ts`.
 */
import type { RuleModule } from '../module.ts';
import { firstVersion } from '../state.ts';
import { PUMPOUT_KINDS, type RULE, type SepticState, septicEvaluator } from './evaluator.ts';
import { params, paramWords } from './params.ts';
import { TANK_DEVICE_KINDS, TANK_SITE_KINDS } from './site.ts';

export const septicPumping: RuleModule<SepticState, typeof RULE, typeof params> = {
  name: 'septic-pumping',
  label: 'Septic tank pumping',
  description:
    'A septic tank should be pumped every few years, or once sludge and scum reach a third of its liquid depth.',
  law: '000, appendix VII',
  params,
  siteParamWords: { kinds: [...TANK_SITE_KINDS], params: paramWords },
  // Per tank device, and once per site: the duty is the owner's whatever sensors exist; the site's own
  // binding keeps it while no tank device does (`site.ts`).
  binds: {
    perDevice: (d, site) => TANK_DEVICE_KINDS.includes(d.kind) && TANK_SITE_KINDS.includes(site.kind),
    andPerSite: (site) => (TANK_SITE_KINDS.includes(site.kind) ? { devices: [] } : undefined),
  },
  state: { version: 1, upgrade: firstVersion },
  evaluator: septicEvaluator,
  // A `cleanout` recorded at a septic site is a pump-out; a guideline has no deadline to extend.
  duty: { meets: PUMPOUT_KINDS, extendable: false, responsible: ['owner'] },
  report: { section: 'remedies', duty: true, pastDue: 'overdue' },
};
