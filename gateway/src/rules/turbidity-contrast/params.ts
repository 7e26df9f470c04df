/** The `turbidity-contrast` rule's parameters: its site's keys and its devices' keys of the configuration. */
import { z } from 'zod';
import type { ParamWords } from '../../../../shared/src/rules.ts';

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

/** Its site parameters in words, with their units (GET /api/rules; the site forms' labels). */
export const paramWords: ParamWords[] = [
  {
    param: 'turbidity.marginNtu',
    label: 'Outlet turbidity above the upstream background that counts as a contrast',
    unit: 'NTU',
  },
];
