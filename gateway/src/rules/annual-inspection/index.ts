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
        letterMonth: z.number().int().min(1).max(12).default(6).describe("The month of the town's letter."),
        letterDay: z.number().int().min(1).max(31).default(1).describe('Its day of the month.'),
        withinDays: z
          .number()
          .positive()
          .default(60)
          .describe('Days after the letter the inspection is due.'),
        notAfter: z
          .string()
          .regex(/^\d\d-\d\d$/)
          .default('09-01')
          .describe('The fixed latest date, MM-DD.'),
        rule: z
          .enum(['earlier', 'later'])
          .default('earlier')
          .describe('Which of the two dates is the deadline.'),
      })
      .prefault({})
      .describe("Alternative systems: the engineer's annual inspection (law 000, 5.030 B 1 d)."),
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
