/** The `routine-inspection` rule's parameters: its site's keys and its devices' keys of the configuration. */
import { z } from 'zod';

export const params = {
  site: {
    routineInspectionDays: z
      .number()
      .positive()
      .default(7)
      .describe('Construction sites: days (of 24 h) between routine inspections (law 001).'),
  },
  device: {},
};

export type Params = typeof params;
