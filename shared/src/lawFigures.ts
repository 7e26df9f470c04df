/**
 * The law's figures a site's parameters set (the storm threshold, the days to inspect or to remedy, the
 * annual deadline), as each rule module states them beside its parameters (`rules/<id>/params.ts`,
 * `lawFigures`): which parameter, the law's figure, and which way is looser than the law. A site may set a
 * figure looser than the law only with a reason for the override (`lawOverrides`, by the figure's id),
 * which is a change record and a line of the site's compliance report (`looser.ts` tells a looser one).
 */
import { z } from 'zod';
import { boundedKeys } from './bounds.ts';

export const lawFigureSchema = z.strictObject({
  /** Its key in a site's `lawOverrides` (e.g. `storm-threshold`). */
  id: z.string(),
  /** The site parameter that sets it, dotted (e.g. `storm.thresholdIn`). */
  param: z.string(),
  /** What it is, in words (e.g. "Rain that calls for a storm inspection"). */
  label: z.string(),
  /** The law's figure: a number, or a date of the year as MM-DD. */
  law: z.union([z.number(), z.string().regex(/^\d\d-\d\d$/)]),
  /** Which way is looser than the law: a larger number, or a later date of the year. */
  looser: z.enum(['above', 'later']),
  /** Its unit in words ("in", "days", "hours"); none for a date. */
  unit: z.string(),
  /** The law's words, with their section, that set the figure. */
  why: z.string(),
});
export type LawFigure = z.infer<typeof lawFigureSchema>;

/** A site's reasons for its figures set looser than the law, by the figure's id. */
export const lawOverridesSchema = boundedKeys(
  z.record(z.string().min(1).max(64), z.string().trim().min(3, 'say why, in a few words').max(500)),
  16,
).describe('A reason per figure set looser than the law, by its id (docs/configuration.md).');
export type LawOverrides = z.infer<typeof lawOverridesSchema>;
