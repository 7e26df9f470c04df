/** The `remedy` rule's parameters: its site's keys and its devices' keys of the configuration. */
import { z } from 'zod';
import { holdParams } from '../hold.ts';

export const params = {
  site: {
    ...holdParams,
    equipmentRemedyDays: z.number().positive().default(5),
    fieldRemedyDays: z.number().positive().default(30),
  },
  device: {},
};

export type Params = typeof params;
