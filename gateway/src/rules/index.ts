/**
 * The rule registry: which evaluators run for a site, and for which devices.
 *
 * How the engine drives a binding:
 * - state: one JSON state per binding, stored under `binding.id`, created by
 *   `binding.evaluator.init(ctx, binding.deviceId)`;
 * - readings: a per-device binding needs its device's readings; a site-level binding those of the
 *   devices in `binding.devices` (turbidity) or none. Routing others to it is harmless: every evaluator
 *   ignores readings that are not its own. (The engine's routing, deviceId undefined -> every reading of
 *   the site, deviceId set -> that device's readings, fits.)
 * - ticks, inspections and alert-closed inputs: to every binding of the site;
 * - effects: apply in the order returned.
 *
 * Which rules apply:
 * | site kind            | site-level                | per device                                                |
 * | construction         | routine-inspection        | rain-gauge: storm-inspection; sediment-trap: sediment-cleanout |
 * | any, with turbidity  | turbidity-contrast (site-level: it needs the outlet AND the background readings) |  |
 * | alternative-system   | annual-inspection         | septic-panel / septic-tank: equipment-remedy + field-remedy, septic-pumping |
 * | septic               |                           | septic-panel / septic-tank: septic-pumping                |
 * | any                  |                           | holding-tank: holding-tank-pumpout; every device: device-silent |
 * Rain gauges at other kinds of site still get storm-inspection for the storm records; it raises alerts
 * only at active construction sites.
 */
import type { SiteConfig } from '../config/schema.ts';
import { alarmEvaluator } from './alarms.ts';
import { annualEvaluator } from './annual.ts';
import { holdingEvaluator } from './holding.ts';
import { routineEvaluator } from './routine.ts';
import { sedimentEvaluator } from './sediment.ts';
import { septicEvaluator } from './septic.ts';
import { silentEvaluator } from './silent.ts';
import { stormEvaluator } from './storm.ts';
import { turbidityEvaluator } from './turbidity.ts';
import type { Effect, Evaluator, RuleContext, RuleInput } from './types.ts';

export { alarmEvaluator } from './alarms.ts';
export { annualEvaluator, annualSchedule } from './annual.ts';
export { holdingEvaluator } from './holding.ts';
export { routineEvaluator } from './routine.ts';
export { fractionFilled, sedimentEvaluator, stageVolume } from './sediment.ts';
export { septicEvaluator } from './septic.ts';
export { defaultSilentMinutes, silentEvaluator } from './silent.ts';
export { stormAlertKey, stormEvaluator, thresholdTips } from './storm.ts';
export { turbidityEvaluator } from './turbidity.ts';
export * from './types.ts';

export interface RuleBinding {
  /** Stable id for the stored state: `${name}:${siteId}` or `${name}:${siteId}:${deviceId}`. */
  id: string;
  /** The evaluator's name (its rule id, or `remedy` for the alarm evaluator that serves two rules). */
  name: string;
  evaluator: Evaluator<unknown>;
  /** The device a per-device binding is for; absent for site-level rules. */
  deviceId?: string;
  /** Devices whose readings this binding needs ([] for site-level rules driven by ticks and inspections). */
  devices: string[];
}

function bind<S>(
  name: string,
  evaluator: Evaluator<S>,
  site: SiteConfig,
  deviceId: string | undefined,
  devices: string[],
): RuleBinding {
  const b: RuleBinding = {
    id: deviceId === undefined ? `${name}:${site.id}` : `${name}:${site.id}:${deviceId}`,
    name,
    evaluator: evaluator as Evaluator<unknown>,
    devices,
  };
  if (deviceId !== undefined) b.deviceId = deviceId;
  return b;
}

/** The evaluators that apply to a site and its devices. */
export function evaluatorsFor(site: SiteConfig): RuleBinding[] {
  const out: RuleBinding[] = [];
  const devs = site.devices;
  if (site.kind === 'construction')
    out.push(bind('routine-inspection', routineEvaluator, site, undefined, []));
  if (site.kind === 'alternative-system')
    out.push(bind('annual-inspection', annualEvaluator, site, undefined, []));
  const turbidity = devs.filter((d) => d.kind === 'turbidity');
  const backgrounds = turbidity.filter((d) => d.role === 'background').map((d) => d.id);
  const outlets = turbidity.filter((d) => d.role === 'outlet').map((d) => d.id);
  if (backgrounds.length > 0 && outlets.length > 0)
    out.push(bind('turbidity-contrast', turbidityEvaluator, site, undefined, [...outlets, ...backgrounds]));
  for (const d of devs) {
    switch (d.kind) {
      case 'rain-gauge':
        out.push(bind('storm-inspection', stormEvaluator, site, d.id, [d.id]));
        break;
      case 'sediment-trap':
        out.push(bind('sediment-cleanout', sedimentEvaluator, site, d.id, [d.id]));
        break;
      case 'septic-panel':
      case 'septic-tank':
        if (site.kind === 'alternative-system') out.push(bind('remedy', alarmEvaluator, site, d.id, [d.id]));
        if (site.kind === 'alternative-system' || site.kind === 'septic')
          out.push(bind('septic-pumping', septicEvaluator, site, d.id, [d.id]));
        break;
      case 'holding-tank':
        out.push(bind('holding-tank-pumpout', holdingEvaluator, site, d.id, [d.id]));
        break;
    }
    out.push(bind('device-silent', silentEvaluator, site, d.id, [d.id]));
  }
  return out;
}

/** The context for a site: its own time zone, else the gateway's. */
export function ruleContext(site: SiteConfig, gatewayTimezone = 'America/New_York'): RuleContext {
  return { site, timezone: site.timezone ?? gatewayTimezone };
}

/** Whether an input concerns a binding (the engine may use this to route). */
export function bindingAccepts(binding: RuleBinding, input: RuleInput): boolean {
  return input.type !== 'reading' || binding.devices.includes(input.reading.deviceId);
}

/** Folds inputs through an evaluator: the final state and every effect, in order. */
export function applyInputs<S>(
  evaluator: Evaluator<S>,
  state: S,
  inputs: Iterable<RuleInput>,
  ctx: RuleContext,
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
