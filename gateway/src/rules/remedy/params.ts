/** The `remedy` rule's parameters: its site's keys and its devices' keys of the configuration. */
import { z } from 'zod';
import type { LawFigure } from '../../../../shared/src/lawFigures.ts';
import type { ParamWords } from '../../../../shared/src/rules.ts';
import { holdParams, holdWords } from '../hold.ts';

export const params = {
  site: {
    ...holdParams,
    equipmentRemedyDays: z
      .number()
      .int()
      .positive()
      .default(5)
      .describe(
        "Alternative systems: whole days to remedy an equipment fault, from its alarm's day (law 000, 5.030 B 1 d).",
      ),
    fieldRemedyDays: z
      .number()
      .int()
      .positive()
      .default(30)
      .describe(
        "Alternative systems: whole days to remedy an absorption field fault, from its alarm's day (law 000, 5.030 B 1 d).",
      ),
  },
  device: {},
};

export type Params = typeof params;

/** The law's figures these parameters set, and which way is looser (`shared/src/lawFigures.ts`). */
export const lawFigures: readonly LawFigure[] = [
  {
    id: 'equipment-remedy-days',
    param: 'equipmentRemedyDays',
    label: 'Days to remedy an equipment fault',
    law: 5,
    looser: 'above',
    unit: 'days',
    why: 'law 000, 5.030 B 1 d: remedial measures "within 5 days if related to equipment"',
  },
  {
    id: 'field-remedy-days',
    param: 'fieldRemedyDays',
    label: 'Days to remedy an absorption field fault',
    law: 30,
    looser: 'above',
    unit: 'days',
    why: 'law 000, 5.030 B 1 d: remedial measures "within … 30 days if related to absorption field"',
  },
];

/** Its site parameters in words, with their units (GET /api/rules; the site forms' labels). */
export const paramWords: ParamWords[] = [
  holdWords,
  { param: 'equipmentRemedyDays', label: 'Days to remedy an equipment fault', unit: 'days' },
  { param: 'fieldRemedyDays', label: 'Days to remedy an absorption field fault', unit: 'days' },
];
