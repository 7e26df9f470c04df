/** The `sediment-cleanout` rule's parameters: its site's keys and its devices' keys of the configuration. */
import { z } from 'zod';

/** A stage-storage table: depth of sediment (in) to stored volume (any unit), ascending depths. */
const stageStorage = z
  .array(z.tuple([z.number().min(0), z.number().min(0)]))
  .min(2)
  .refine((t) => t.every((row, i) => i === 0 || (row[0] > t[i - 1]![0] && row[1] >= t[i - 1]![1])), {
    message: 'depths must ascend and volumes must not decrease',
  });

export const params = {
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

export type Params = typeof params;
