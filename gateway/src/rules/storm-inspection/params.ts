/** The `storm-inspection` rule's parameters: its site's keys and its devices' keys of the configuration. */
import { z } from 'zod';
import type { LawFigure } from '../../../../shared/src/lawFigures.ts';
import type { ParamWords } from '../../../../shared/src/rules.ts';

export const params = {
  site: {
    storm: z
      .strictObject({
        thresholdIn: z
          .number()
          .positive()
          .default(0.5)
          .describe('The rain of one storm event (in) that calls for an inspection.'),
        interEventHours: z
          .number()
          .positive()
          .default(6)
          .describe('A dry period this long or longer separates two storm events.'),
        dueFrom: z
          .enum(['end', 'threshold'])
          .default('end')
          .describe('The due time counts from the last tip (`end`, moves while it rains) or the crossing.'),
        dueHours: z.number().positive().default(24).describe('Hours to inspect.'),
        settleMinutes: z
          .number()
          .min(0)
          .max(1440)
          .default(5)
          .describe('Late readings settle this long before a storm they make raises its alert; 0: at once.'),
      })
      .prefault({})
      .describe('Rain gauges at construction sites: the storm inspection (law 001).'),
  },
  device: {
    inchesPerTip: z
      .number()
      .positive()
      .max(1)
      .optional()
      .describe('Rain gauges (required): calibration, inches per tip (0.01 in, or 0.2 mm = 0.007874 in).'),
    /**
     * Readings before `until` were counted at that entry's inches per tip (the first entry whose `until`
     * is after the reading's time); later ones at `inchesPerTip`.
     */
    calibrations: z
      .array(
        z.strictObject({
          until: z
            .union([z.number().int(), z.iso.datetime({ offset: true }).transform((t) => Date.parse(t))])
            .describe('Readings before this time (ms since 1970, or ISO time) were counted at this entry.'),
          inchesPerTip: z.number().positive().max(1).describe('The inches per tip in force until then.'),
        }),
      )
      .optional()
      .describe(
        'Rain gauges: earlier calibrations, oldest first, written by a calibration change through the API; later readings count at `inchesPerTip`.',
      ),
  },
};

export type Params = typeof params;

/**
 * The law's figures these parameters set, and which way is looser (`shared/src/lawFigures.ts`): a site
 * sets one looser only with a reason for the override.
 */
export const lawFigures: readonly LawFigure[] = [
  {
    id: 'storm-threshold',
    param: 'storm.thresholdIn',
    label: 'Rain that calls for a storm inspection',
    law: 0.5,
    looser: 'above',
    unit: 'in',
    why: 'law 001 asks for an inspection "within 24 hours of any storm event producing 0.5 inch of precipitation or more"',
  },
  {
    id: 'storm-due-hours',
    param: 'storm.dueHours',
    label: 'Hours to inspect after a storm',
    law: 24,
    looser: 'above',
    unit: 'hours',
    why: 'law 001 asks for an inspection "within 24 hours of any storm event"',
  },
];

/** Its site parameters in words, with their units (GET /api/rules; the site forms' labels). */
export const paramWords: ParamWords[] = [
  { param: 'storm.thresholdIn', label: 'Rain that calls for a storm inspection', unit: 'in' },
  { param: 'storm.interEventHours', label: 'Dry spell that separates two storms', unit: 'hours' },
  {
    param: 'storm.dueFrom',
    label: 'The hours to inspect count from',
    unit: '',
    options: [
      { value: 'end', label: 'the last rain of the storm' },
      { value: 'threshold', label: 'the moment the rain reached the threshold' },
    ],
  },
  { param: 'storm.dueHours', label: 'Hours to inspect after a storm', unit: 'hours' },
  { param: 'storm.settleMinutes', label: 'Wait for late readings before raising the alert', unit: 'minutes' },
];
