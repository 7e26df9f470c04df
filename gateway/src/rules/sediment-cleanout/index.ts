/**
 * The `sediment-cleanout` rule: sediment shall be removed from a trap or pond whenever its design
 * capacity has been reduced by 50% (law 001, maintenance during construction, A(1)). Capacity, the
 * alert and the cleanout seen in the data: `evaluator.ts`.
 */
import { z } from 'zod';
import type { RuleModule } from '../module.ts';
import { firstVersion } from '../state.ts';
import { type RULE, type SedimentState, sedimentEvaluator } from './evaluator.ts';

/** A stage-storage table: depth of sediment (in) to stored volume (any unit), ascending depths. */
const stageStorage = z
  .array(z.tuple([z.number().min(0), z.number().min(0)]))
  .min(2)
  .refine((t) => t.every((row, i) => i === 0 || (row[0] > t[i - 1]![0] && row[1] >= t[i - 1]![1])), {
    message: 'depths must ascend and volumes must not decrease',
  });

const params = {
  site: {
    sedimentCleanoutFraction: z
      .number()
      .gt(0)
      .lt(1)
      .default(0.5)
      .describe('Sediment traps: the share of the design capacity lost that calls for a cleanout (law 001).'),
    cleanoutDropFraction: z
      .number()
      .gt(0)
      .lt(1)
      .default(0.25)
      .describe('A drop in sediment depth of at least this share of the design depth shows a cleanout.'),
  },
  device: {
    designDepthIn: z
      .number()
      .positive()
      .optional()
      .describe('Sediment traps: design sediment depth (in); it or `stageStorage` is required.'),
    stageStorage: stageStorage
      .optional()
      .describe('Sediment traps: [depth in, volume] rows, depths ascending; capacity is then a volume.'),
  },
};

export const sedimentCleanout: RuleModule<SedimentState, typeof RULE, typeof params> = {
  name: 'sediment-cleanout',
  law: '001, maintenance during construction, A(1)',
  params,
  checkDevice(d, problem) {
    if (d.kind === 'sediment-trap' && d.designDepthIn === undefined && d.stageStorage === undefined)
      problem('designDepthIn', 'a sediment trap needs designDepthIn or stageStorage');
  },
  binds: { perDevice: (d) => d.kind === 'sediment-trap' },
  state: { version: 1, upgrade: firstVersion },
  evaluator: sedimentEvaluator,
  // "Whenever": no deadline to extend; a cleanout shows in the data, not as an inspection.
  duty: { meets: () => false, closesBegunAlerts: false, extendable: false, responsible: ['developer'] },
  report: { section: 'cleanouts', duty: true, pastDue: 'overdue' },
};
