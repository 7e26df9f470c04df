/**
 * A site's figures set looser than the law, in the site forms: under each figure the rules state
 * (`lawFigures` of GET /api/rules: the law's figure, which way is looser, the law's words), a field for
 * the reason, shown while the figure entered (or on record) is looser than the law, saying why in words;
 * the form refuses a looser figure without a reason before it is sent. The reason is recorded by the
 * gateway and printed on the site's compliance report.
 */
import type { LawFigure } from '../../../shared/src/lawFigures.ts';
import { figureValue, figureWords, isLooser } from '../../../shared/src/looser.ts';
import { get } from '../api.js';
import { state } from '../state.js';
import { type Field, getPath, type Schema } from './form.js';

/** The law's figures of every rule, once each (a module serving two rules gives its figures to both). */
export async function lawFigures(): Promise<LawFigure[]> {
  const rules = state.rules.length ? state.rules : await get('GET /api/rules');
  const seen = new Map<string, LawFigure>();
  for (const r of rules) for (const f of r.lawFigures) if (!seen.has(f.id)) seen.set(f.id, f);
  return [...seen.values()];
}

type Known = Readonly<Record<string, unknown>> | undefined;

/** The figure as the form would leave it: the value entered, else the one on record. */
function entered(f: LawFigure, values: Record<string, unknown>, site: Known): unknown {
  const v = getPath(values, f.param);
  return v === undefined || v === '' ? figureValue(site ?? {}, f.param) : v;
}

/** The reason field's name in the form (it nests as `lawOverrides: { id: … }`). */
const reasonName = (f: LawFigure) => `lawOverrides.${f.id}`;

/** Why a reason is asked for, in words. */
function why(f: LawFigure): string {
  const way = f.looser === 'above' ? 'More than' : 'Later than';
  return `${way} ${figureWords(f, f.law)} is looser than the law: ${f.why}. A looser figure is kept only with a reason; the reason, who gave it and when are recorded and printed on the site's compliance report.`;
}

/** The fields, each figure's followed by its reason field (shown only while the figure is looser). */
export function withReasons(fields: Field[], figures: readonly LawFigure[], site: Known): Field[] {
  const reasons = (site?.lawOverrides ?? {}) as Record<string, string | undefined>;
  return fields.flatMap((field) => {
    const f = figures.find((x) => x.param === field.name);
    if (!f) return [field];
    const reason: Field = {
      name: reasonName(f),
      label: `Reason for setting "${f.label.toLowerCase()}" looser than the law`,
      hint: why(f),
      value: reasons[f.id],
      placeholder: 'e.g. agreed with the town engineer on (date), because …',
      ...(field.group ? { group: field.group } : {}),
      when: (v) => (field.when?.(v) ?? true) && isLooser(f, entered(f, v, site)),
    };
    return [field, reason];
  });
}

/** A check the form runs with the API's schemas: a looser figure needs its reason. */
export function reasonsCheck(figures: readonly LawFigure[], site: Known): Schema {
  return {
    safeParse(v: unknown) {
      const values = (v ?? {}) as Record<string, unknown>;
      const issues = figures
        .filter((f) => isLooser(f, entered(f, values, site)))
        .filter((f) => {
          const r = getPath(values, reasonName(f));
          return typeof r !== 'string' || r.trim() === '';
        })
        .map((f) => ({
          path: ['lawOverrides', f.id] as PropertyKey[],
          message: `Say why: ${figureWords(f, entered(f, values, site))} is looser than the law's ${figureWords(f, f.law)}.`,
        }));
      return issues.length ? { success: false, error: { issues } } : { success: true };
    },
  };
}
