/** The `device-silent` rule's parameters: its site's keys and its devices' keys of the configuration. */
import { z } from 'zod';

export const params = {
  site: {},
  device: {
    silentAfterMinutes: z
      .number()
      .positive()
      .optional()
      .describe(
        'Minutes without a message before a silence is recorded (default 60 for rain gauges, else 120).',
      ),
  },
};

export type Params = typeof params;
