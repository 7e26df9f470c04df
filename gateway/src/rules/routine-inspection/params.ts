/** The `routine-inspection` rule's parameters: its site's keys and its devices' keys of the configuration. */
import { z } from 'zod';
import type { LawFigure } from '../../../../shared/src/lawFigures.ts';
import type { ParamWords } from '../../../../shared/src/rules.ts';

export const params = {
  site: {
    routineInspectionDays: z
      .number()
      .int()
      .positive()
      .default(7)
      .describe(
        'Construction sites: whole days between routine inspections; the last day is whole, to midnight (law 001).',
      ),
  },
  device: {},
};

export type Params = typeof params;

/** The law's figure this parameter sets, and which way is looser (`shared/src/lawFigures.ts`). */
export const lawFigures: readonly LawFigure[] = [
  {
    id: 'routine-days',
    param: 'routineInspectionDays',
    label: 'Days between routine inspections',
    law: 7,
    looser: 'above',
    unit: 'days',
    why: 'law 001 says "inspection reports shall be completed every seven days"',
  },
];

/** Its site parameters in words, with their units (GET /api/rules; the site forms' labels). */
export const paramWords: ParamWords[] = [
  { param: 'routineInspectionDays', label: 'Days between routine inspections', unit: 'days' },
];
