/**
 * The rules as the rest of the gateway sees them: every rule id, the bindings of a site, and the
 * questions the engine, the stores, the reports and the API ask of the rule modules instead of naming a
 * rule id (which inspections meet which duties, which deadlines may be extended, what the report shows).
 */

import type { AlertDto } from '../../../shared/src/api/alerts.ts';
import type { LawFigure } from '../../../shared/src/lawFigures.ts';
import type { DutyMeasure, RuleInfo } from '../../../shared/src/rules.ts';
import { type FactLine, factLines } from '../../../shared/src/words.ts';
import type { ChartMark, DeviceCharts } from './charts.ts';
import type { DeviceView, RecipientRole, SiteView } from './context.ts';
import {
  type InspectionFacts,
  meetsDuty,
  type RuleModule,
  type RuleReport,
  ruleIdsOf,
  sidesOf,
  siteBinding,
  wordsOf,
} from './module.ts';
import { RULE_IDS, RULE_MODULES, type RuleId } from './registry.ts';

export {
  applyInputs,
  type BindableRule,
  bindingAccepts,
  bindRule,
  bindRules,
  evaluatorsFor,
  ruleContext,
  type SiteRule,
} from './binding.ts';
export type { ChartDerivation, ChartMark, ChartReference, ChartRuleLine, DeviceCharts } from './charts.ts';
/**
 * When a device is expected to report (its time in service): the silence rule's answer, which the
 * charts' gaps and the report's gap count use too, so the three agree.
 */
export {
  type DeviceService,
  expectedSpans,
  gapExpected,
  gapsIn,
  type OutOfService,
  outOfService,
  type Span,
} from './device-silent/expected.ts';
export { RULE_IDS, RULE_MODULES, type RuleId } from './registry.ts';

const byId = new Map<string, RuleModule>(RULE_MODULES.flatMap((m) => ruleIdsOf(m).map((id) => [id, m])));

/** The module that serves a rule id. */
export function ruleModule(id: string): RuleModule | undefined {
  return byId.get(id);
}

export type { InspectionFacts } from './module.ts';

/** The rules whose duty an inspection meets (of its kind and side, covering what each asks). */
export function rulesMetBy(insp: InspectionFacts): RuleId[] {
  return RULE_IDS.filter((id) => meetsDuty(byId.get(id)!.duty, insp));
}

/**
 * The rules whose evaluators are fed an inspection: those whose duty it meets, and those with no
 * inspection duty at all, which read inspections for what they record (a deficiency found remedied).
 */
export function rulesFedBy(insp: InspectionFacts): RuleId[] {
  return RULE_IDS.filter((id) => {
    const duty = byId.get(id)!.duty;
    return duty.meets.length === 0 || meetsDuty(duty, insp);
  });
}

/** What time of an inspection meets a rule's deadline (`RuleDuty.measure`): the work's by default. */
export function measureOf(id: string): DutyMeasure {
  return byId.get(id)?.duty.measure ?? 'work';
}

/** The module whose evaluator keeps the storm records. */
const stormModule = RULE_MODULES.find((m) => m.storms === true);

/** The rule of the storm records (their inspection duty), if a module keeps them. */
export function stormRuleId(): RuleId | undefined {
  return stormModule ? ruleIdsOf<RuleId>(stormModule)[0] : undefined;
}

/** Whether an inspection of this kind may meet a storm's inspection duty (of a side it names). */
export function meetsStormInspection(kind: string): boolean {
  return stormModule ? stormModule.duty.meets.includes(kind) : false;
}

/** The sides whose inspections meet a storm's inspection duty. */
export function stormInspectionSides(): readonly string[] {
  return stormModule ? sidesOf(stormModule.duty) : [];
}

/** The recipients' roles that must act on a rule's alerts (reminders go to them). */
export function responsibleRoles(id: string): readonly RecipientRole[] {
  return byId.get(id)?.duty.responsible ?? [];
}

/** Whether an engineer's letter may extend the deadline of a rule's alerts. */
export function allowsExtension(id: string): boolean {
  return byId.get(id)?.duty.extendable ?? false;
}

/** Why a person may not resolve a rule's alerts by hand, in words; undefined when they may. */
export function manualResolveRefusal(id: string): string | undefined {
  return byId.get(id)?.duty.noManualResolve;
}

const OTHER: RuleReport = { section: 'other', duty: true, pastDue: 'overdue' };

/** What the compliance report shows for a rule's alerts. */
export function reportOf(id: string): RuleReport {
  return byId.get(id)?.report ?? OTHER;
}

/** The rule parameters of a device in effect (defaults applied), as the API shows them. */
export function deviceParams(device: DeviceView): Record<string, unknown> {
  const modules: readonly RuleModule[] = RULE_MODULES;
  return Object.assign({}, ...modules.map((m) => m.deviceView?.(device) ?? {}));
}

/** Every rule id with its words, its law and its duty, as GET /api/rules serves them. */
export function ruleCatalogue(): RuleInfo[] {
  const modules: readonly RuleModule[] = RULE_MODULES;
  return modules.flatMap((m) =>
    ruleIdsOf(m).map((id) => ({
      id,
      module: m.name,
      ...wordsOf(m, id),
      law: m.law,
      duty: m.report.duty,
      extendable: m.duty.extendable,
      ...(m.duty.extendable
        ? {}
        : {
            noExtension:
              m.duty.noExtension ??
              `No engineer's letter can extend this deadline: the law (${m.law}) sets it.`,
          }),
      ...(m.duty.noManualResolve ? { noManualResolve: m.duty.noManualResolve } : {}),
      meetsInspections: [...m.duty.meets],
      measure: m.duty.measure ?? 'work',
      meetsSides: [...sidesOf(m.duty)],
      everyPractice: m.duty.everyPractice === true,
      responsible: [...m.duty.responsible],
      section: m.report.section,
      lawFigures: [...(m.lawFigures ?? [])],
      siteParams: {
        kinds: [...(m.siteParamWords?.kinds ?? [])],
        params: (m.siteParamWords?.params ?? []).map((p) => ({
          ...p,
          ...(p.options ? { options: p.options.map((o) => ({ ...o })) } : {}),
        })),
      },
    })),
  );
}

/**
 * The deadline readings of the rules that apply to a site (bound to it or to one of its devices), or
 * whose alerts `listed` holds: each module's line for the report, with the list its alerts are in.
 */
export function deadlineReadings(
  site: SiteView,
  listed: readonly string[] = [],
): Array<{ rule: string; section: RuleReport['section']; text: string }> {
  const modules: readonly RuleModule[] = RULE_MODULES;
  return modules
    .filter(
      (m) =>
        m.deadlineReading !== undefined &&
        (ruleIdsOf(m).some((id) => listed.includes(id)) ||
          site.devices.some((d) => appliesTo(m, d, site)) ||
          siteBinding(m.binds, site) !== undefined),
    )
    .map((m) => ({ rule: ruleIdsOf(m)[0]!, section: m.report.section, text: m.deadlineReading!(site) }));
}

/** The law's figures the rules' site parameters set, every module's, in the registry's order. */
export const LAW_FIGURES: readonly LawFigure[] = (RULE_MODULES as readonly RuleModule[]).flatMap(
  (m) => m.lawFigures ?? [],
);

/** A rule id's label ("Storm inspection"); an id no module serves is its own label. */
export function ruleLabel(id: string): string {
  const m = byId.get(id);
  return m ? wordsOf(m, id).label : id;
}

/** Whether a module's rule applies to a device of a site (it is bound to it, or to the site for it). */
function appliesTo(m: RuleModule, device: DeviceView, site: SiteView): boolean {
  if ('perDevice' in m.binds) return m.binds.perDevice(device, site);
  return m.binds.perSite(site)?.devices.includes(device.id) ?? false;
}

/** The parts of a device's charts of every rule that applies to it, in the modules' order. */
export function deviceCharts(device: DeviceView, site: SiteView): DeviceCharts[] {
  const modules: readonly RuleModule[] = RULE_MODULES;
  const out: DeviceCharts[] = [];
  for (const m of modules) {
    if (!m.charts || !appliesTo(m, device, site)) continue;
    const part = m.charts.device(device, site);
    if (part) out.push(part);
  }
  return out;
}

/** The rule ids whose alerts may mark a chart (a cleanout seen in the data). */
export function chartMarkingRules(): RuleId[] {
  return RULE_IDS.filter((id) => byId.get(id)?.charts?.marks !== undefined);
}

/** The marks one alert puts on its device's charts. */
export function chartMarksOf(alert: AlertDto): ChartMark[] {
  return byId.get(alert.rule)?.charts?.marks?.(alert) ?? [];
}

/**
 * An alert's evidence in words, times in `tz`: its rule's sentences first, then every other key with a
 * generic label ("Last inspection: none on record"), never a raw key or value.
 */
export function evidenceText(
  id: string,
  evidence: Readonly<Record<string, unknown>>,
  tz: string,
): FactLine[] {
  let told: { lines: FactLine[]; told: readonly string[] } = { lines: [], told: [] };
  try {
    told = byId.get(id)?.describeEvidence?.(evidence, tz) ?? told;
  } catch (e) {
    // Evidence of an older release may lack what the words expect: the generic labels still tell all of
    // it, and a line says why the rule's own words are missing.
    const why = e instanceof Error ? e.message : String(e);
    told = {
      lines: [{ label: 'Note', text: `shown as recorded: the rule's words did not apply (${why})` }],
      told: [],
    };
  }
  return [...told.lines, ...factLines(evidence, tz, told.told)];
}
