/**
 * The shape of a rule module: everything the gateway knows about one rule (or, for `remedy/`, the two
 * rules one evaluator serves), declared in the rule's folder. `registry.ts` lists the modules; the
 * engine, the stores, the reports, the API and the configuration ask them (through `index.ts`) instead of
 * naming a rule id.
 */
import type { z } from 'zod';
import type { DeviceConfig, RecipientRole, SiteConfig } from '../config/schema.ts';
import type { Evaluator, RuleContext } from './types.ts';

/** Configuration keys and their zod schemas, which carry the validation and the defaults. */
export type ParamShape = Record<string, z.ZodType>;

/** A rule's parameters: keys of a site's configuration, and keys of a device's. */
export interface RuleParams<SP extends ParamShape = ParamShape, DP extends ParamShape = ParamShape> {
  site: SP;
  device: DP;
}

/** Where a rule's evaluator is bound: once per site it applies to, or once per device it applies to. */
export type RuleBinds =
  | {
      /** Undefined when the rule does not apply; else the devices whose readings it needs ([] for none). */
      perSite(site: SiteConfig): { devices: string[] } | undefined;
    }
  | { perDevice(device: DeviceConfig, site: SiteConfig): boolean };

/**
 * The version of a rule's stored state. The state carries it as `v`; a stored state without one is
 * version 1. The engine calls `upgrade` when it loads a state older than `version`.
 */
export interface RuleState<S> {
  version: number;
  upgrade(state: unknown, from: number, ctx: RuleContext, deviceId: string | undefined): S;
}

/** What meets a rule's duty, and whether its deadline may be moved. */
export interface RuleDuty {
  /** Whether an inspection of this kind (routine, storm, annual, cleanout, other) meets the duty. */
  meets(kind: string): boolean;
  /**
   * The evaluator resolves the alerts an inspection meets. When this is true the engine then also
   * closes every open alert of the rule at the site raised at or before the inspection (one inspection
   * covers every storm before it, including those the evaluator no longer holds).
   */
  closesBegunAlerts: boolean;
  /** Whether a licensed engineer's letter may extend the rule's deadline. */
  extendable: boolean;
  /** The recipients' roles that must act on it: reminders go to them (to everyone when none is listed). */
  responsible: readonly RecipientRole[];
}

/** The lists of the compliance report. */
export const REPORT_SECTIONS = ['routine', 'cleanouts', 'remedies', 'gaps', 'other'] as const;
export type ReportSection = (typeof REPORT_SECTIONS)[number];

/** What the compliance report shows for a rule's alerts. */
export interface RuleReport {
  section: ReportSection;
  /** Whether its alerts count among the summary's duties (on time, late, missing, overdue, open). */
  duty: boolean;
  /** An unresolved alert past its due time: `missing` (an inspection never done) or `overdue`. */
  pastDue: 'missing' | 'overdue';
}

export interface RuleModule<S = unknown, Id extends string = string, P extends RuleParams = RuleParams> {
  /** The folder's name; the name of its bindings and of its stored state's owner. */
  name: string;
  /** The section of the law (or the product's own reason) the rule enforces. */
  law: string;
  params: P;
  /** Checks a device needs for this rule, reported with the key's path (e.g. a trap's design depth). */
  checkDevice?(device: DeviceConfig, problem: (key: string, message: string) => void): void;
  /** The device parameters in effect, defaults applied: the API shows them with the device. */
  deviceView?(device: DeviceConfig): Record<string, unknown>;
  binds: RuleBinds;
  state: RuleState<S>;
  /** The pure evaluator; its `rule` names the module's rule id(s). */
  evaluator: Evaluator<S, Id>;
  duty: RuleDuty;
  report: RuleReport;
  /**
   * Its evaluator keeps the storm records (`storm` effects): their inspection status follows its duty,
   * and the report's storm list and storm counts are its.
   */
  storms?: true;
}

/** The rule ids a module (or an evaluator) serves, as a list. */
export function ruleIdsOf<Id extends string>(m: {
  evaluator: Pick<Evaluator<unknown, Id>, 'rule'>;
}): readonly Id[] {
  const r = m.evaluator.rule;
  return typeof r === 'string' ? [r] : r;
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
