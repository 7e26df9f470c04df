/**
 * A site's figures set looser than the law (`shared/src/lawFigures.ts`, the figures of the rule modules):
 * one is taken only with a reason for the override, and each override is a change record of its own
 * (entity `override`, `ref` the figure's id): `set` when a figure becomes looser, or its value or reason
 * changes (who, when, the value, the law's figure, the reason), `withdraw` when it is back within the law.
 * The compliance report prints the overrides in effect in its period from these records.
 */
import { figureValue, type LooseFigure, looseFigures } from '../../../shared/src/looser.ts';
import type { SiteConfig } from '../config/schema.ts';
import { unexplainedFigures } from '../config/schema.ts';
import { LAW_FIGURES } from '../rules/index.ts';
import type { ChangeInput } from './changes.ts';

/** Why a site is refused: its looser figures without a reason, in words (undefined: none). */
export function overrideProblem(site: SiteConfig): string | undefined {
  const p = unexplainedFigures(site);
  return p.length > 0 ? p.map((x) => `${x.path.join('.')}: ${x.message}`).join('; ') : undefined;
}

/** The site with only the reasons of its figures that are looser than the law (a reason left over goes). */
export function keepOverrides(site: SiteConfig): SiteConfig {
  const loose = looseFigures(site, LAW_FIGURES);
  const { lawOverrides: _o, ...rest } = site;
  const kept = Object.fromEntries(
    loose.filter((x) => x.reason !== undefined).map((x) => [x.figure.id, x.reason!]),
  );
  return Object.keys(kept).length > 0 ? { ...rest, lawOverrides: kept } : rest;
}

const recordOf = (x: LooseFigure) => ({
  figure: x.figure.label,
  value: x.value,
  law: x.figure.law,
  unit: x.figure.unit,
  reason: x.reason,
});

/** The override records of a change from `cur` (none: a new site) to `next`. */
export function overrideChanges(
  siteId: string,
  by: string,
  cur: SiteConfig | undefined,
  next: SiteConfig,
): ChangeInput[] {
  const before = new Map(cur ? looseFigures(cur, LAW_FIGURES).map((x) => [x.figure.id, x]) : []);
  const after = new Map(looseFigures(next, LAW_FIGURES).map((x) => [x.figure.id, x]));
  const out: ChangeInput[] = [];
  for (const f of LAW_FIGURES) {
    const was = before.get(f.id);
    const is = after.get(f.id);
    if (is && (!was || was.value !== is.value || was.reason !== is.reason))
      out.push({
        entity: 'override',
        action: 'set',
        by,
        siteId,
        ref: f.id,
        ...(was ? { old: recordOf(was) } : {}),
        new: recordOf(is),
      });
    else if (was && !is)
      out.push({
        entity: 'override',
        action: 'withdraw',
        by,
        siteId,
        ref: f.id,
        old: recordOf(was),
        new: { figure: f.label, value: figureValue(next, f.param), law: f.law, unit: f.unit },
      });
  }
  return out;
}
