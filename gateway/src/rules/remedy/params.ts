/** The `remedy` rule's parameters: its site's keys and its devices' keys of the configuration. */
import { z } from 'zod';
import { holdParams } from '../hold.ts';

export const params = {
  site: {
    ...holdParams,
    equipmentRemedyDays: z
      .number()
      .int()
      .positive()
      .default(5)
      .describe(
        "Alternative systems: whole days to remedy an equipment fault, from its alarm's day (law 000, 5.030 B 1 d).",
      ),
    fieldRemedyDays: z
      .number()
      .int()
      .positive()
      .default(30)
      .describe(
        "Alternative systems: whole days to remedy an absorption field fault, from its alarm's day (law 000, 5.030 B 1 d).",
      ),
  },
  device: {},
};

export type Params = typeof params;
