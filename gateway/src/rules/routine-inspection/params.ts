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
        'Construction sites: whole days between routine inspections; the last day is whole, to midnight (law 001).',
      ),
  },
  device: {},
};

export type Params = typeof params;
