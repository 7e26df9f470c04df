/**
 * The remedy rules, one module for two rule ids served by one evaluator: `equipment-remedy` (a fault of
 * a pump, blower or aerator, control panel, or high water in a pump tank: remedy within 5 days) and
 * `field-remedy` (a fault of the absorption field: remedy within 30 days), on alternative systems (law
 * 000, 5.030 B 1 d). A licensed engineer's letter may extend either deadline. The debounced alarm
 * inputs and their episodes: `evaluator.ts`; the stored state's key is `equipment-remedy+field-remedy`.
 */
import type { SITE_KINDS } from '../../../../shared/src/admin.ts';
import type { DeviceKind } from '../../../../shared/src/telemetry.ts';
import type { RuleModule } from '../module.ts';
import {
  ALARM_STATE_VERSION,
  type AlarmState,
  alarmEvaluator,
  type RemedyRule,
  upgradeAlarmState,
} from './evaluator.ts';
import { lawFigures, params, paramWords } from './params.ts';
import { describeRemedyEvidence } from './words.ts';

/**
 * The devices whose alarms are remedy duties, and the site kinds where they are: an alternative system's
 * panel or tank, and a holding tank (an advanced system, 5.030 B 1 b), whose high-water alarm is an
 * equipment fault.
 */
export const REMEDY_DEVICES: ReadonlyArray<{
  device: DeviceKind;
  sites: readonly (typeof SITE_KINDS)[number][];
}> = [
  { device: 'septic-panel', sites: ['alternative-system'] },
  { device: 'septic-tank', sites: ['alternative-system'] },
  { device: 'holding-tank', sites: ['alternative-system', 'holding-tank'] },
];

export const remedy: RuleModule<AlarmState, RemedyRule, typeof params> = {
  name: 'remedy',
  label: 'Remedy',
  description:
    'A fault of an alternative system is to be remedied: equipment within 5 days, the absorption field within 30.',
  words: {
    'equipment-remedy': {
      label: 'Equipment remedy (5 d)',
      description:
        'A fault of a pump, blower or aerator, control panel, or high water in a pump tank is to be remedied within 5 days.',
    },
    'field-remedy': {
      label: 'Absorption field remedy (30 d)',
      description: 'A fault of the absorption field is to be remedied within 30 days.',
    },
  },
  law: '000, 5.030 B 1 d',
  params,
  siteParamWords: { kinds: [...new Set(REMEDY_DEVICES.flatMap((d) => d.sites))], params: paramWords },
  lawFigures,
  binds: {
    perDevice: (d, site) => REMEDY_DEVICES.some((b) => b.device === d.kind && b.sites.includes(site.kind)),
  },
  state: { version: ALARM_STATE_VERSION, upgrade: upgradeAlarmState },
  evaluator: alarmEvaluator,
  describeEvidence: describeRemedyEvidence,
  // The law lets a licensed engineer's letter extend a remedy deadline.
  duty: { meets: [], extendable: true, responsible: ['owner'] },
  report: { section: 'remedies', duty: true, pastDue: 'overdue' },
};
