/** The `turbidity-contrast` rule's parameters: its site's keys and its devices' keys of the configuration. */
import { z } from 'zod';

export const params = {
  site: { turbidity: z.strictObject({ marginNtu: z.number().positive().default(50) }).prefault({}) },
  device: {
    /** Turbidity: upstream background or outlet. */
    role: z.enum(['background', 'outlet']).optional(),
  },
};

export type Params = typeof params;
