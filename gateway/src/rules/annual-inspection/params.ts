/** The `annual-inspection` rule's parameters: its site's keys and its devices' keys of the configuration. */
import { z } from 'zod';

export const params = {
  site: {
    annualInspection: z
      .strictObject({
        letterMonth: z.number().int().min(1).max(12).default(6),
        letterDay: z.number().int().min(1).max(31).default(1),
        withinDays: z.number().positive().default(60),
        /** The fixed latest date, MM-DD; the earlier of the two applies unless `rule` says otherwise. */
        notAfter: z
          .string()
          .regex(/^\d\d-\d\d$/)
          .default('09-01'),
        rule: z.enum(['earlier', 'later']).default('earlier'),
      })
      .prefault({}),
  },
  device: {},
};

export type Params = typeof params;
