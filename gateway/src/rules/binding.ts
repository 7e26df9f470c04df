/**
 * A rule bound to a site: one evaluator, the site (and device) it runs for, and how its state is kept.
 * The context it runs in (the site and its time zone, `ruleContext`) is the site's, shared by its rules.
 *
 * How the engine drives a binding:
 * - state: one JSON state per binding, stored under (site, `stateKey`, device or ''), created by
 *   `evaluator.init(ctx, deviceId)` and upgraded by `state.upgrade` when stored at an older version;
 * - readings: a per-device binding gets its device's readings; a site-level binding every reading of the
 *   site (it needs those of `devices`: turbidity compares outlets with backgrounds; every evaluator
 *   ignores readings that are not its own);
 * - ticks, inspections and alert-closed inputs: every binding of the site;
 * - effects: applied in the order returned.
 *
 * The modules say where they bind (`RuleModule.binds`: per site, per device, or per device and once per
 * site); README.md has the table.
 */
import type { RuleParams, SiteFacts, SiteView } from './context.ts';
import { type RuleModule, type RuleState, ruleIdsOf, siteBinding, stateKeyOf } from './module.ts';
import { RULE_MODULES, type RuleId } from './registry.ts';
import type { Effect, Evaluator, RuleContext, RuleInput } from './types.ts';

export interface SiteRule {
  /** `${name}:${siteId}` or `${name}:${siteId}:${deviceId}`. */
  readonly id: string;
  /** The module's name (its folder). */
  readonly name: string;
  readonly evaluator: Evaluator<unknown, RuleId>;
  /** The rule ids its effects carry. */
  readonly rules: readonly RuleId[];
  /** The `rule` column of its stored state: its ids joined by `+`. */
  readonly stateKey: string;
  readonly state: RuleState<unknown>;
  readonly siteId: string;
  /** The device of a per-device binding; absent for a site-level one. */
  readonly deviceId?: string;
  /** Devices whose readings it needs. */
  readonly devices: readonly string[];
  /**
   * The key of its state among all bindings' (site, state key and device joined by NUL): the same for a
   * binding made again, as after a site change, so it reads the state committed under the first.
   */
  readonly stateId: string;
}

/** What a binding needs of a module (a test may bind a stub evaluator the same way). */
export type BindableRule = Pick<RuleModule<unknown, RuleId>, 'name' | 'evaluator' | 'state'>;

/**
 * A binding: what it shares with every binding of its module (name, evaluator, ids, state) is one
 * reference, and its id is built when read. A 10,000-device fleet holds tens of thousands of them.
 */
class Binding implements SiteRule {
  /** Its state's key, built at first use and kept: one flat string a binding. */
  private key: string | undefined = undefined;

  constructor(
    private readonly m: ModuleShared,
    readonly siteId: string,
    readonly deviceId: string | undefined,
    readonly devices: readonly string[],
  ) {}

  get name(): string {
    return this.m.name;
  }
  get evaluator(): Evaluator<unknown, RuleId> {
    return this.m.evaluator;
  }
  get rules(): readonly RuleId[] {
    return this.m.rules;
  }
  get stateKey(): string {
    return this.m.stateKey;
  }
  get state(): RuleState<unknown> {
    return this.m.state;
  }

  get id(): string {
    return this.deviceId === undefined
      ? `${this.name}:${this.siteId}`
      : `${this.name}:${this.siteId}:${this.deviceId}`;
  }

  get stateId(): string {
    if (this.key === undefined) this.key = [this.siteId, this.m.stateKey, this.deviceId ?? ''].join('\u0000');
    return this.key;
  }
}

type ModuleShared = Pick<SiteRule, 'name' | 'evaluator' | 'rules' | 'stateKey' | 'state'>;

/** What every binding of a module shares, computed once per module. */
const sharedOf = new WeakMap<BindableRule, ModuleShared>();

function shared(rule: BindableRule): ModuleShared {
  let m = sharedOf.get(rule);
  if (!m) {
    m = {
      name: rule.name,
      evaluator: rule.evaluator,
      rules: ruleIdsOf(rule),
      stateKey: stateKeyOf(rule),
      state: rule.state,
    };
    sharedOf.set(rule, m);
  }
  return m;
}

/** Binds a rule to a site (and a device). */
export function bindRule(
  rule: BindableRule,
  site: Pick<SiteFacts, 'id'>,
  deviceId: string | undefined,
  devices: readonly string[],
): SiteRule {
  return new Binding(shared(rule), site.id, deviceId, devices);
}

/** The context for a site: its own time zone, else the gateway's. */
export function ruleContext<Site extends SiteView>(
  site: Site,
  gatewayTimezone = 'America/New_York',
): { site: Site; timezone: string } {
  return { site, timezone: site.timezone ?? gatewayTimezone };
}

/** The modules' bindings on a site: its site-level ones, then each device's, in the modules' order. */
export function bindRules(modules: readonly RuleModule<unknown, RuleId>[], site: SiteView): SiteRule[] {
  const out: SiteRule[] = [];
  for (const m of modules) {
    const b = siteBinding(m.binds, site);
    if (b) out.push(bindRule(m, site, undefined, b.devices));
  }
  for (const d of site.devices) {
    // One list for all of the device's bindings (none of them changes it).
    const only = [d.id];
    for (const m of modules)
      if ('perDevice' in m.binds && m.binds.perDevice(d, site)) out.push(bindRule(m, site, d.id, only));
  }
  return out;
}

/** The registry's rules that apply to a site. */
export function evaluatorsFor(site: SiteView): SiteRule[] {
  return bindRules(RULE_MODULES, site);
}

/** Whether an input concerns a binding (the engine may use this to route). */
export function bindingAccepts(binding: SiteRule, input: RuleInput): boolean {
  return input.type !== 'reading' || binding.devices.includes(input.reading.deviceId);
}

/** Folds inputs through an evaluator: the final state and every effect, in order. */
export function applyInputs<S, P extends RuleParams>(
  evaluator: Evaluator<S, string, P>,
  state: S,
  inputs: Iterable<RuleInput>,
  ctx: RuleContext<P>,
): { state: S; effects: Effect[] } {
  let s = state;
  const effects: Effect[] = [];
  for (const input of inputs) {
    const r = evaluator.evaluate(s, input, ctx);
    s = r.state;
    for (const e of r.effects) effects.push(e);
  }
  return { state: s, effects };
}
