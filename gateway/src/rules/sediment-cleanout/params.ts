/** The `sediment-cleanout` rule's parameters: its site's keys and its devices' keys of the configuration. */
import { z } from 'zod';
import type { ParamWords } from '../../../../shared/src/rules.ts';

/** A stage-storage table: depth of sediment (in) to stored volume (any unit), ascending depths. */
const stageStorage = z
  .array(z.tuple([z.number().min(0), z.number().min(0)]))
  .min(2)
  .refine((t) => t.every((row, i) => i === 0 || (row[0] > t[i - 1]![0] && row[1] >= t[i - 1]![1])), {
    message: 'depths must ascend and volumes must not decrease',
  });

export const params = {
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

export type Params = typeof params;

/** Its site parameters in words, with their units (GET /api/rules; the site forms' labels). */
export const paramWords: ParamWords[] = [
  {
    param: 'sedimentCleanoutFraction',
    label: "Share of a trap's capacity filled with sediment that calls for a cleanout",
    unit: 'share of the design capacity, 0 to 1',
  },
  {
    param: 'cleanoutDropFraction',
    label: 'Drop in sediment depth that shows a cleanout was done',
    unit: 'share of the design depth, 0 to 1',
  },
];
