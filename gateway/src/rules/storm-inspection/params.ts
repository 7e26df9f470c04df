/** The `storm-inspection` rule's parameters: its site's keys and its devices' keys of the configuration. */
import { z } from 'zod';

export const params = {
  site: {
    storm: z
      .strictObject({
        thresholdIn: z.number().positive().default(0.5),
        interEventHours: z.number().positive().default(6),
        dueFrom: z.enum(['end', 'threshold']).default('end'),
        dueHours: z.number().positive().default(24),
        /**
         * While a gauge delivers readings out of order (or a late reading reports many tips after a
         * silence), the storms they make raise their alerts only once no such reading came for this
         * long; 0 raises them at once, as release 0.1.0 did.
         */
        settleMinutes: z.number().min(0).max(1440).default(5),
      })
      .prefault({}),
  },
  device: {
    /** Rain gauges: calibration, inches per tip (0.01 in, or 0.2 mm = 0.007874 in). */
    inchesPerTip: z.number().positive().max(1).optional(),
    /**
     * Rain gauges: earlier calibrations, oldest first. Readings before `until` were counted at that entry's
     * inches per tip (the first entry whose `until` is after the reading's time); later ones at
     * `inchesPerTip`. Written by a calibration change through the API (`effectiveAt`).
     */
    calibrations: z
      .array(
        z.strictObject({
          until: z.union([
            z.number().int(),
            z.iso.datetime({ offset: true }).transform((t) => Date.parse(t)),
          ]),
          inchesPerTip: z.number().positive().max(1),
        }),
      )
      .optional(),
  },
};

export type Params = typeof params;
