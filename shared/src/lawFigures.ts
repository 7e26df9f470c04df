/**
 * The law's figures a site's parameters set (the storm threshold, the days to inspect or to remedy, the
 * annual deadline), as each rule module states them beside its parameters (`rules/<id>/params.ts`,
 * `lawFigures`): which parameter, the law's figure, and which way is looser than the law. A site may set a
 * figure looser than the law only with a reason for the override (`lawOverrides`, by the figure's id),
 * which is a change record and a line of the site's compliance report. Pure: the gateway refuses with it,
 * the dashboard asks for a reason with it.
 */
import { z } from 'zod';

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
export const lawOverridesSchema = z
  .record(z.string().min(1).max(64), z.string().trim().min(3, 'say why, in a few words').max(500))
  .describe('A reason per figure set looser than the law, by its id (docs/configuration.md).');
export type LawOverrides = z.infer<typeof lawOverridesSchema>;

/** The value of a dotted parameter in a site's configuration (undefined when it is not there). */
export function figureValue(site: Readonly<Record<string, unknown>>, param: string): unknown {
  let v: unknown = site;
  for (const k of param.split('.')) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[k];
  }
  return v;
}

/** Whether a value of the figure is looser than the law's. */
export function isLooser(f: LawFigure, value: unknown): boolean {
  if (typeof f.law === 'number') return typeof value === 'number' && value > f.law;
  return typeof value === 'string' && value > f.law;
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** A value of the figure in words: "0.75 in", "10 days", "September 15". */
export function figureWords(f: Pick<LawFigure, 'unit'>, value: unknown): string {
  if (typeof value === 'string' && /^\d\d-\d\d$/.test(value)) {
    const [m, d] = value.split('-').map(Number);
    return `${MONTHS[(m ?? 1) - 1] ?? value} ${String(d)}`;
  }
  if (typeof value === 'number') return f.unit ? `${String(value)} ${f.unit}` : String(value);
  return String(value);
}

/** A figure of a site set looser than the law, with the reason given for it (if any). */
export interface LooseFigure {
  figure: LawFigure;
  value: unknown;
  reason: string | undefined;
}

/** The site's figures set looser than the law (its parameters with their defaults applied). */
export function looseFigures(
  site: Readonly<Record<string, unknown>>,
  figures: readonly LawFigure[],
): LooseFigure[] {
  const reasons = (site.lawOverrides ?? {}) as Readonly<Record<string, string>>;
  return figures
    .map((figure) => ({ figure, value: figureValue(site, figure.param), reason: reasons[figure.id] }))
    .filter((x) => isLooser(x.figure, x.value));
}

/** Why a looser figure needs a reason, in words for the person setting it. */
export function looserWords(f: LawFigure, value: unknown): string {
  const way = f.looser === 'above' ? 'more than' : 'later than';
  return `${f.label}: ${figureWords(f, value)} is ${way} the law allows (${figureWords(f, f.law)}; ${f.why}). It can be set only with a reason, which is recorded and printed on the compliance report.`;
}
