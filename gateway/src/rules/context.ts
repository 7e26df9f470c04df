/**
 * What a rule sees of a site: the facts every rule may read (its id, name, kind, time zone, whether it
 * is active, its history on record; each device's id, kind and name) and the rule's own parameters,
 * parsed by the rule's own zod schemas. The configuration composes its site and device schemas from these facts and from the
 * modules' parameters (`mergeParams`), so a site of the configuration is a site of every rule.
 */
import { z } from 'zod';
import { entityId, RECIPIENT_ROLES, SITE_KINDS, siteHistory } from '../../../shared/src/admin.ts';
import { DEVICE_KINDS } from '../../../shared/src/telemetry.ts';

/** Configuration keys and their zod schemas, which carry the validation and the defaults. */
export type ParamShape = Record<string, z.ZodType>;

/** A rule's parameters: keys of a site's configuration, and keys of a device's. */
export interface RuleParams<SP extends ParamShape = ParamShape, DP extends ParamShape = ParamShape> {
  site: SP;
  device: DP;
}

/** The keys of a site every rule may read. */
export const siteFacts = {
  id: entityId.describe("The site's id, unique on this gateway (and among the gateways sharing a broker)."),
  name: z.string().optional().describe('A name people read.'),
  kind: z.enum(SITE_KINDS).describe('What the site is; it decides which rules apply.'),
  timezone: z.string().optional().describe('IANA time zone of the site (default: the top-level `timezone`).'),
  active: z
    .boolean()
    .default(true)
    .describe('Construction sites: work is going on (storm and routine duties apply).'),
  history: siteHistory
    .optional()
    .describe(
      "The site's history on record (the last inspections, the town's letter, the last pump-out): the clocks start from it.",
    ),
};

/** The keys of a device every rule may read. */
export const deviceFacts = {
  id: entityId.describe("The device's id, unique within its site."),
  kind: z.enum(DEVICE_KINDS).describe('What the device is; it decides which rules watch it.'),
  name: z.string().optional().describe('A name people read.'),
};

/** Who a recipient is to a site; rules name the roles that must act on them. */
export const recipientRole = z.enum(RECIPIENT_ROLES);
export type RecipientRole = z.infer<typeof recipientRole>;

/** Parameter keys as parsed: the output of their object schema (defaults applied); none: nothing. */
export type Parsed<S extends ParamShape> = [keyof S] extends [never]
  ? unknown
  : z.output<z.ZodObject<S, z.core.$strict>>;

export type SiteFacts = Parsed<typeof siteFacts>;
export type DeviceFacts = Parsed<typeof deviceFacts>;

/** A device as a rule sees it: the facts and the rule's device parameters. */
export type DeviceView<DP extends ParamShape = ParamShape> = DeviceFacts & Parsed<DP>;

/** A site as a rule sees it: the facts, the rule's site parameters, and its devices. */
export type SiteView<P extends RuleParams = RuleParams> = SiteFacts &
  Parsed<P['site']> & { devices: readonly DeviceView<P['device']>[] };

/** What an evaluator runs with: its site (as the rule sees it) and the site's time zone. */
export interface RuleContext<P extends RuleParams = RuleParams> {
  site: SiteView<P>;
  /** IANA time zone for this site (site.timezone or the gateway's). */
  timezone: string;
}
