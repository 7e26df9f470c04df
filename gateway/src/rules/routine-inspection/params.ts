/** The `routine-inspection` rule's parameters: its site's keys and its devices' keys of the configuration. */
import { z } from 'zod';

export const params = {
  site: {
    routineInspectionDays: z
      .number()
      .int()
      .positive()
      .default(7)
      .describe(
        'Construction sites: whole days between routine inspections: the next is due by the end of the 7th day after the day of the last (law 001).',
      ),
  },
  device: {},
};

export type Params = typeof params;
