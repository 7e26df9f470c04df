/**
 * The shape of a rule module: everything the gateway knows about one rule (or, for `remedy/`, the two
 * rules one evaluator serves), declared in the rule's folder. `registry.ts` lists the modules; the
 * engine, the stores, the reports, the API and the configuration ask them (through `index.ts`) instead of
 * naming a rule id.
 */

import { INSPECTION_SIDES, type InspectionSide } from '../../../shared/src/api/findings.ts';
import type { LawFigure } from '../../../shared/src/lawFigures.ts';
import type { DutyMeasure, ReportSection, SiteParamWords } from '../../../shared/src/rules.ts';
import type { FactLine } from '../../../shared/src/words.ts';
import type { RuleCharts } from './charts.ts';
import type { DeviceView, ParamShape, RecipientRole, RuleContext, RuleParams, SiteView } from './context.ts';
import type { Evaluator } from './types.ts';

export type { ParamShape, RuleParams } from './context.ts';

/**
 * Where a rule's evaluator is bound: once per site it applies to, once per device it applies to, or once
 * per device and once per site (`andPerSite`).
 */
export type RuleBinds<P extends RuleParams = RuleParams> =
  | {
      /** Undefined when the rule does not apply; else the devices whose readings it needs ([] for none). */
      perSite(site: SiteView<P>): { devices: string[] } | undefined;
    }
  | {
      perDevice(device: DeviceView<P['device']>, site: SiteView<P>): boolean;
      /**
       * A duty of the site's whatever devices it has (the septic tank's pumping): bound once to the site
       * too, with the devices it needs ([] for none); its evaluator says what it does while a device
       * keeps the duty.
       */
      andPerSite?(site: SiteView<P>): { devices: string[] } | undefined;
    };

/** A module's binding to the site itself, if it has one there (`perSite`, `andPerSite`): the devices it needs. */
export function siteBinding<P extends RuleParams>(
  binds: RuleBinds<P>,
  site: SiteView<P>,
): { devices: string[] } | undefined {
  return 'perSite' in binds ? binds.perSite(site) : binds.andPerSite?.(site);
}

/**
 * The version of a rule's stored state. The state carries it as `v`; a stored state without one is
 * version 1. The engine calls `upgrade` when it loads a state older than `version`.
 */
export interface RuleState<S, P extends RuleParams = RuleParams> {
  version: number;
  upgrade(state: unknown, from: number, ctx: RuleContext<P>, deviceId: string | undefined): S;
}

/** What meets a rule's duty, and whether its deadline may be moved. */
export interface RuleDuty {
  /**
   * The inspection kinds (of routine, storm, annual, cleanout, other) that meet the duty; the engine asks
   * `meetsDuty`, the API lists them.
   */
  meets: readonly string[];
  /**
   * Whose inspection meets it (`developer`: the developer, a contractor, an owner, or an inspector acting
   * for them; `town`: the town's own). Every side when none is listed. The developer's duties list only
   * `developer`: the town's visit is recorded as the town's and closes none of them.
   */
  sides?: readonly InspectionSide[];
  /**
   * At a site with practices, an inspection meets it only when it has a finding for every practice of
   * the site (001: "all erosion and sediment control practices"); one covering fewer is recorded as
   * partial and meets nothing.
   */
  everyPractice?: boolean;
  /**
   * What time of an inspection meets its deadline: `work`, when the inspection was made on the land (a
   * storm or routine inspection; the default), or `submittal`, when the gateway received its report (a
   * report to be submitted to the town: the annual inspection). Both are shown.
   */
  measure?: DutyMeasure;
  /** Whether a licensed engineer's letter may extend the rule's deadline. */
  extendable: boolean;
  /**
   * Why no letter may extend it, in words for the person who would ask ("A routine inspection cannot be
   * extended: the law sets the interval"); without it, `index.ts` says the law sets it.
   */
  noExtension?: string;
  /**
   * When set, no person closes its alerts by hand (a resolution with a note is refused): what closes them
   * instead, in words for the person who would try ("It closes when the officer approves the correction").
   */
  noManualResolve?: string;
  /** The recipients' roles that must act on it: reminders go to them (to everyone when none is listed). */
  responsible: readonly RecipientRole[];
}

export { REPORT_SECTIONS, type ReportSection } from '../../../shared/src/rules.ts';

/** What the compliance report shows for a rule's alerts. */
export interface RuleReport {
  section: ReportSection;
  /** Whether its alerts count among the summary's duties (on time, late, missing, overdue, open). */
  duty: boolean;
  /** An unresolved alert past its due time: `missing` (an inspection never done) or `overdue`. */
  pastDue: 'missing' | 'overdue';
}

/**
 * An alert's evidence in a rule's words: labelled sentences, and the evidence keys they tell (the API
 * shows the others with generic labels, `shared/src/words.ts`).
 */
export interface EvidenceWords {
  lines: FactLine[];
  told: readonly string[];
}

/** A rule's words for people: its name as the dashboard and Home Assistant show it, and one line. */
export interface RuleWords {
  /** E.g. "Storm inspection". */
  label: string;
  /** One sentence: what the rule asks, and when. */
  description: string;
}

export interface RuleModule<S = unknown, Id extends string = string, P extends RuleParams = RuleParams>
  extends RuleWords {
  /** The folder's name; the name of its bindings and of its stored state's owner. */
  name: string;
  /** For a module serving several rule ids: each id's own words (else every id has the module's). */
  words?: Readonly<Partial<Record<Id, RuleWords>>>;
  /** The section of the law (or the product's own reason) the rule enforces. */
  law: string;
  params: P;
  /**
   * The law's figures its site parameters set, and which way is looser (`params.ts`): a site sets one
   * looser only with a reason for the override (`shared/src/lawFigures.ts`).
   */
  lawFigures?: readonly LawFigure[];
  /** Its site parameters in words, and the kinds of site they apply to (`params.ts`). */
  siteParamWords?: SiteParamWords;
  /** Checks a device needs for this rule, reported with the key's path (e.g. a trap's design depth). */
  checkDevice?(device: DeviceView<P['device']>, problem: (key: string, message: string) => void): void;
  /** The device parameters in effect, defaults applied: the API shows them with the device. */
  deviceView?(device: DeviceView<P['device']>): Record<string, unknown>;
  binds: RuleBinds<P>;
  state: RuleState<S, P>;
  /** The pure evaluator; its `rule` names the module's rule id(s). */
  evaluator: Evaluator<S, Id, P>;
  /**
   * Its alerts' evidence (as its evaluator records it, on raise and update) in words, times in the site's
   * zone `tz`. Pure; a key it does not know is left out of `told`.
   */
  describeEvidence?(evidence: Readonly<Record<string, unknown>>, tz: string): EvidenceWords;
  duty: RuleDuty;
  report: RuleReport;
  /**
   * How the site's configuration reads the law's deadline, where the law leaves the town a choice: one
   * line the compliance report prints under the rule's list ("Deadline read as: …").
   */
  deadlineReading?(site: SiteView<P>): string;
  /**
   * Its evaluator keeps the storm records (`storm` effects): their inspection status follows its duty,
   * and the report's storm list and storm counts are its.
   */
  storms?: true;
  /** Its part of the charts of the devices it applies to: derived measures, legal lines, marks. */
  charts?: RuleCharts<P>;
}

/** The rule ids a module (or an evaluator) serves, as a list. */
export function ruleIdsOf<Id extends string>(m: {
  evaluator: Pick<Evaluator<unknown, Id>, 'rule'>;
}): readonly Id[] {
  const r = m.evaluator.rule;
  return typeof r === 'string' ? [r] : r;
}

/**
 * What the duties ask of an inspection: its kind, its side, and whether it covered every practice of its
 * site (true at a site without practices).
 */
export interface InspectionFacts {
  kind: string;
  side: InspectionSide;
  everyPractice: boolean;
}

/** The sides whose inspections meet a duty. */
export function sidesOf(duty: Pick<RuleDuty, 'sides'>): readonly InspectionSide[] {
  return duty.sides ?? INSPECTION_SIDES;
}

/** Whether an inspection meets a duty: of a kind and a side it names, covering what it asks. */
export function meetsDuty(
  duty: Pick<RuleDuty, 'meets' | 'sides' | 'everyPractice'>,
  insp: InspectionFacts,
): boolean {
  return (
    duty.meets.includes(insp.kind) &&
    sidesOf(duty).includes(insp.side) &&
    (duty.everyPractice !== true || insp.everyPractice)
  );
}

/** The words of one of a module's rule ids. */
export function wordsOf<Id extends string>(
  m: RuleWords & { words?: Readonly<Partial<Record<Id, RuleWords>>> },
  id: Id,
): RuleWords {
  return m.words?.[id] ?? { label: m.label, description: m.description };
}

/** The key of a rule's stored state: its ids joined by `+`, as release 0.1.0 stored it. */
export function stateKeyOf(m: { evaluator: Pick<Evaluator<unknown>, 'rule'> }): string {
  return ruleIdsOf(m).join('+');
}

type UnionToIntersection<U> = (U extends unknown ? (k: U) => void : never) extends (k: infer I) => void
  ? I
  : never;

/** The parameter keys of a list of modules, merged: the site's (`site`) or a device's (`device`). */
export type MergedParams<M extends readonly RuleModule[], K extends keyof RuleParams> = UnionToIntersection<
  M[number]['params'][K]
>;

/**
 * Merges the modules' parameter keys into one shape for the configuration schema. Two modules may share
 * a key only with the same schema object (e.g. `alarmHoldSeconds`, which `hold.ts` gives both rules that
 * debounce a float).
 */
export function mergeParams<const M extends readonly RuleModule[], K extends keyof RuleParams>(
  modules: M,
  part: K,
): MergedParams<M, K> {
  const out: ParamShape = {};
  const owner = new Map<string, string>();
  for (const m of modules)
    for (const [key, schema] of Object.entries(m.params[part])) {
      if (key in out && out[key] !== schema)
        throw new Error(`rule parameter "${key}" of ${m.name} differs from the one of ${owner.get(key)}`);
      out[key] = schema;
      owner.set(key, m.name);
    }
  return out as MergedParams<M, K>;
}
