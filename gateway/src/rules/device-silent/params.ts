/** The `device-silent` rule's parameters: its site's keys and its devices' keys of the configuration. */
import { z } from 'zod';

export const params = {
  site: {},
  device: {
    /** Minutes without a message before a silence is recorded; defaults by kind. */
    silentAfterMinutes: z.number().positive().optional(),
  },
};

export type Params = typeof params;
