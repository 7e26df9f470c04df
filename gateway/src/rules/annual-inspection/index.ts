/**
 * The `annual-inspection` rule: each alternative system needs a licensed engineer's inspection every
 * year, submitted within 60 days of the town's June letter or before September 1, the earlier by default
 * (law 000, 5.030 B 1 d). The schedule and its alerts: `evaluator.ts`.
 */
import { z } from 'zod';
import type { RuleModule } from '../module.ts';
import { firstVersion } from '../state.ts';
import { type AnnualState, annualEvaluator, isAnnualInspection, type RULE } from './evaluator.ts';

const params = {
  site: {
    annualInspection: z
      .strictObject({
        letterMonth: z.number().int().min(1).max(12).default(6),
        letterDay: z.number().int().min(1).max(31).default(1),
        withinDays: z.number().positive().default(60),
        /** The fixed latest date, MM-DD; the earlier of the two applies unless `rule` says otherwise. */
        notAfter: z
          .string()
          .regex(/^\d\d-\d\d$/)
          .default('09-01'),
        rule: z.enum(['earlier', 'later']).default('earlier'),
      })
      .prefault({}),
  },
  device: {},
};

export const annualInspection: RuleModule<AnnualState, typeof RULE, typeof params> = {
  name: 'annual-inspection',
  law: '000, 5.030 B 1 d',
  params,
  binds: { perSite: (site) => (site.kind === 'alternative-system' ? { devices: [] } : undefined) },
  state: { version: 1, upgrade: firstVersion },
  evaluator: annualEvaluator,
  // The law's "within 60 days or prior to September 1st" leaves no room for an extension.
  duty: {
    meets: isAnnualInspection,
    closesBegunAlerts: false,
    extendable: false,
    responsible: ['owner', 'engineer'],
  },
  report: { section: 'remedies', duty: true, pastDue: 'overdue' },
};
