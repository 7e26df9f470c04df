/** The `turbidity-contrast` rule's parameters: its site's keys and its devices' keys of the configuration. */
import { z } from 'zod';

export const params = {
  site: {
    turbidity: z
      .strictObject({
        marginNtu: z
          .number()
          .positive()
          .default(50)
          .describe('Outlet NTU above the background beyond which the contrast counts (a surrogate).'),
      })
      .prefault({})
      .describe('Turbidity: outlet against upstream background (law 001, water quality standards).'),
  },
  device: {
    role: z
      .enum(['background', 'outlet'])
      .optional()
      .describe('Turbidity sensors (required): upstream background or outlet.'),
  },
};

export type Params = typeof params;
