/** The `septic-pumping` rule's parameters: its site's keys and its devices' keys of the configuration. */
import { z } from 'zod';

export const params = {
  site: {
    septicPumping: z
      .strictObject({
        fraction: z
          .number()
          .gt(0)
          .lt(1)
          .default(1 / 3),
        maxYears: z.number().positive().default(3),
        lastPumpedAt: z.iso.datetime({ offset: true }).optional(),
      })
      .prefault({}),
  },
  device: {
    /** Tanks: liquid depth (in); a level, sludge or scum deeper than this is absurd. */
    liquidDepthIn: z.number().positive().optional(),
  },
};

export type Params = typeof params;
