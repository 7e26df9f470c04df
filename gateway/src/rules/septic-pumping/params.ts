/** The `septic-pumping` rule's parameters: its site's keys and its devices' keys of the configuration. */
import { z } from 'zod';
import type { ParamWords } from '../../../../shared/src/rules.ts';

export const params = {
  site: {
    septicPumping: z
      .strictObject({
        fraction: z
          .number()
          .gt(0)
          .lt(1)
          .default(1 / 3)
          .describe("The share of the tank's liquid depth sludge and scum may fill."),
        maxYears: z
          .number()
          .positive()
          .default(3)
          .describe('Years between pump-outs at most: the duty is due at the end of that anniversary.'),
        reminderYears: z
          .number()
          .positive()
          .default(2)
          .describe('Years after a pump-out when the duty opens, a reminder before it is due.'),
        lastPumpedAt: z.iso
          .datetime({ offset: true })
          .optional()
          .describe('The last pump-out before the gateway knew the tank.'),
      })
      .prefault({})
      .describe('Septic tanks: when to pump (law 000, appendix VII, a guideline).'),
  },
  device: {
    liquidDepthIn: z
      .number()
      .positive()
      .optional()
      .describe('Tanks: liquid depth (in); a level, sludge or scum deeper than this is absurd.'),
  },
};

export type Params = typeof params;

/** Its site parameters in words, with their units (GET /api/rules; the site forms' labels). */
export const paramWords: ParamWords[] = [
  {
    param: 'septicPumping.fraction',
    label: "Share of the tank's liquid depth sludge and scum may fill",
    unit: 'share of the liquid depth, 0 to 1',
  },
  { param: 'septicPumping.maxYears', label: 'Most years between pump-outs', unit: 'years' },
  {
    param: 'septicPumping.reminderYears',
    label: 'Years after a pump-out when the reminder opens',
    unit: 'years',
  },
  { param: 'septicPumping.lastPumpedAt', label: 'Last pump-out before the gateway', unit: 'date and time' },
];
