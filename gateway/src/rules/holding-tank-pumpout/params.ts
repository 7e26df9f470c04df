/** The `holding-tank-pumpout` rule's parameters: its site's keys and its devices' keys of the configuration. */
import { z } from 'zod';
import type { ParamWords } from '../../../../shared/src/rules.ts';
import { holdParams, holdWords } from '../hold.ts';

export const params = {
  site: holdParams,
  device: {
    highLevelIn: z
      .number()
      .positive()
      .optional()
      .describe('Holding tanks: the high level (in) that calls for a pump-out.'),
  },
};

export type Params = typeof params;

/** Its site parameters in words, with their units (GET /api/rules; the site forms' labels). */
export const paramWords: ParamWords[] = [holdWords];
