/**
 * Whether a site's figure is looser than the law, and in words (`lawFigures.ts` has the figures' shape).
 * Pure and free of zod: the gateway refuses with it, the dashboard's site editor asks for a reason with it.
 */
import type { LawFigure } from './lawFigures.ts';

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
