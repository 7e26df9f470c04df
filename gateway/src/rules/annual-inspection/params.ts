/** The `annual-inspection` rule's parameters: its site's keys and its devices' keys of the configuration. */
import { z } from 'zod';
import type { LawFigure } from '../../../../shared/src/lawFigures.ts';
import type { ParamWords } from '../../../../shared/src/rules.ts';

export const params = {
  site: {
    annualInspection: z
      .strictObject({
        letterMonth: z.number().int().min(1).max(12).default(6).describe("The month of the town's letter."),
        letterDay: z.number().int().min(1).max(31).default(1).describe('Its day of the month.'),
        withinDays: z
          .number()
          .int()
          .positive()
          .default(60)
          .describe(
            "Whole days after the letter's day the inspection is due; the last day is whole, to midnight.",
          ),
        notAfter: z
          .string()
          .regex(/^\d\d-\d\d$/)
          .default('09-01')
          .describe('The fixed date, MM-DD: the form is due "prior to" it, by the end of the day before.'),
        rule: z
          .enum(['earlier', 'later'])
          .default('earlier')
          .describe(
            'The town\'s reading of "within 60 days or prior to September 1st": the earlier or the later date (on the report).',
          ),
      })
      .prefault({})
      .describe("Alternative systems: the engineer's annual inspection (law 000, 5.030 B 1 d)."),
  },
  device: {},
};

export type Params = typeof params;

/** The law's figures these parameters set, and which way is looser (`shared/src/lawFigures.ts`). */
export const lawFigures: readonly LawFigure[] = [
  {
    id: 'annual-within-days',
    param: 'annualInspection.withinDays',
    label: "Days after the town's letter to submit the annual inspection",
    law: 60,
    looser: 'above',
    unit: 'days',
    why: 'law 000, 5.030 B 1 d: "for submittal to the Town within 60 days or prior to September 1st"',
  },
  {
    id: 'annual-not-after',
    param: 'annualInspection.notAfter',
    label: 'Latest date of the annual inspection',
    law: '09-01',
    looser: 'later',
    unit: '',
    why: 'law 000, 5.030 B 1 d: "within 60 days or prior to September 1st"',
  },
];

/** Its site parameters in words, with their units (GET /api/rules; the site forms' labels). */
export const paramWords: ParamWords[] = [
  {
    param: 'annualInspection.letterMonth',
    label: "Month of the town's annual letter",
    unit: 'month, 1 to 12',
  },
  { param: 'annualInspection.letterDay', label: "Day of the town's annual letter", unit: 'day of the month' },
  { param: 'annualInspection.withinDays', label: "Days after the letter's day to inspect", unit: 'days' },
  {
    param: 'annualInspection.notAfter',
    label: 'Date of the year the inspection is due before',
    unit: 'month and day, MM-DD',
  },
  {
    param: 'annualInspection.rule',
    label: 'Which of the two dates is the deadline',
    unit: '',
    options: [
      { value: 'earlier', label: 'the earlier date' },
      { value: 'later', label: 'the later date' },
    ],
  },
];
