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
    sedimentCleanoutFraction: z.number().gt(0).lt(1).default(0.5),
    /** A cleanout shows as a drop in sediment depth of at least this fraction of the design depth. */
    cleanoutDropFraction: z.number().gt(0).lt(1).default(0.25),
  },
  device: {
    /** Sediment traps: design sediment depth (in) whose loss of half triggers a cleanout; or a stage-storage table. */
    designDepthIn: z.number().positive().optional(),
    stageStorage: stageStorage.optional(),
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
