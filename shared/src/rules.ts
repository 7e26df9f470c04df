/**
 * The rules as GET /api/rules serves them, shared by the gateway, which answers with them, and the
 * dashboard, which takes its rule labels and the actions it offers on an alert from them. One entry per
 * rule id an alert may carry.
 */
import { z } from 'zod';
import { RECIPIENT_ROLES } from './admin.ts';
import { inspectionSideSchema } from './api/findings.ts';
import { lawFigureSchema } from './lawFigures.ts';

/**
 * One site parameter of a rule in words, as its module states them (`rules/<id>/params.ts`): what it is
 * ("Rain that calls for a storm inspection"), its unit ("in"), and a choice's options in words.
 */
export const paramWordsSchema = z.strictObject({
  /** The site parameter, dotted (e.g. `storm.thresholdIn`). */
  param: z.string(),
  label: z.string(),
  /** Its unit in words ("in", "days", "share of the design depth, 0 to 1"); empty for none. */
  unit: z.string(),
  /** A choice's options in words, by value. */
  options: z.array(z.strictObject({ value: z.string(), label: z.string() })).optional(),
});
export type ParamWords = z.infer<typeof paramWordsSchema>;

/** A module's site parameters in words, and the kinds of site they apply to. */
export const siteParamWordsSchema = z.strictObject({
  kinds: z.array(z.string()),
  params: z.array(paramWordsSchema),
});
export type SiteParamWords = z.infer<typeof siteParamWordsSchema>;

/** The lists of the compliance report; `gaps` holds the gaps in the evidence (a silent device). */
export const REPORT_SECTIONS = ['routine', 'cleanouts', 'remedies', 'gaps', 'other'] as const;
export type ReportSection = (typeof REPORT_SECTIONS)[number];

/**
 * The time of an inspection that meets a duty: `work`, when it was made on the land (as given), or
 * `submittal`, when the gateway received its report (a report the law says is submitted to the town).
 */
export const DUTY_MEASURES = ['work', 'submittal'] as const;
export const dutyMeasureSchema = z.enum(DUTY_MEASURES);
export type DutyMeasure = z.infer<typeof dutyMeasureSchema>;

export const ruleInfoSchema = z.strictObject({
  /** The rule id its alerts carry. */
  id: z.string(),
  /** The rule module that raises it (its folder); a module may raise several rule ids. */
  module: z.string(),
  /** Its name for people, e.g. "Storm inspection". */
  label: z.string(),
  /** One sentence: what the rule asks, and when. */
  description: z.string(),
  /** The section of the law (or the product's own reason) it enforces. */
  law: z.string(),
  /** Whether its alerts count among the compliance report's duties (a device problem does not). */
  duty: z.boolean(),
  /** Whether a licensed engineer's letter may extend the deadline of its alerts. */
  extendable: z.boolean(),
  /** Why no letter may extend it, in words for the person who would ask (absent when one may). */
  noExtension: z.string().optional(),
  /** When set, no person resolves its alerts by hand: what closes them instead, in words. */
  noManualResolve: z.string().optional(),
  /** The inspection kinds that meet it (none: it is met in the data, or not by an inspection). */
  meetsInspections: z.array(z.string()),
  /** What time of an inspection meets its deadline: the work's, or the submittal's to the town. */
  measure: dutyMeasureSchema,
  /** Whose inspections meet it: the developer's side, the town's, or both. */
  meetsSides: z.array(inspectionSideSchema),
  /** Whether, at a site with practices, only an inspection with a finding for every practice meets it. */
  everyPractice: z.boolean(),
  /** The recipients' roles that must act on its alerts (reminders go to them; none: everyone). */
  responsible: z.array(z.enum(RECIPIENT_ROLES)),
  /** The compliance report's list its alerts are shown in. */
  section: z.enum(REPORT_SECTIONS),
  /**
   * The law's figures its site parameters set (its module's, so a module's rule ids share them): a site
   * sets one looser than the law only with a reason for the override.
   */
  lawFigures: z.array(lawFigureSchema),
  /**
   * Its site parameters in words (its module's, so a module's rule ids share them) and the kinds of site
   * they apply to: a form shows a site only the parameters of its kind.
   */
  siteParams: siteParamWordsSchema,
});
export type RuleInfo = z.infer<typeof ruleInfoSchema>;

/** GET /api/rules: every rule id, in the registry's order. */
export const rulesResponseSchema = z.array(ruleInfoSchema);
export type RulesResponse = z.infer<typeof rulesResponseSchema>;
