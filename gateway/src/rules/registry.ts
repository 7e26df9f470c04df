/**
 * The rule registry: the list of rule modules, one folder each. Adding a rule is one new folder and one
 * line here (README.md says how). The order is the order of their bindings on a site and of the
 * configuration's keys. The list of rule ids is derived from it.
 */
import { annualInspection } from './annual-inspection/index.ts';
import { deficiencyRemedy } from './deficiency-remedy/index.ts';
import { developerRecords } from './developer-records/index.ts';
import { deviceClock } from './device-clock/index.ts';
import { deviceSilent } from './device-silent/index.ts';
import { holdingTankPumpout } from './holding-tank-pumpout/index.ts';
import { ruleIdsOf } from './module.ts';
import { remedy } from './remedy/index.ts';
import { routineInspection } from './routine-inspection/index.ts';
import { sedimentCleanout } from './sediment-cleanout/index.ts';
import { septicPumping } from './septic-pumping/index.ts';
import { stormInspection } from './storm-inspection/index.ts';
import { turbidityContrast } from './turbidity-contrast/index.ts';
import { violationRemedy } from './violation-remedy/index.ts';

export const RULE_MODULES = [
  stormInspection,
  routineInspection,
  sedimentCleanout,
  turbidityContrast,
  remedy,
  annualInspection,
  septicPumping,
  holdingTankPumpout,
  deviceSilent,
  deviceClock,
  violationRemedy,
  deficiencyRemedy,
  developerRecords,
] as const;

type Ids<R> = R extends readonly (infer I)[] ? I : R;
/** A rule id: one of the ids the modules serve. */
export type RuleId = Ids<(typeof RULE_MODULES)[number]['evaluator']['rule']>;

/** Every rule id, in the modules' order. */
export const RULE_IDS: readonly RuleId[] = RULE_MODULES.flatMap((m) => ruleIdsOf<RuleId>(m));
