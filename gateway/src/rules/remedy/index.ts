/**
 * The remedy rules, one module for two rule ids served by one evaluator: `equipment-remedy` (a fault of
 * a pump, blower or aerator, control panel, or high water in a pump tank: remedy within 5 days) and
 * `field-remedy` (a fault of the absorption field: remedy within 30 days), on alternative systems (law
 * 000, 5.030 B 1 d). A licensed engineer's letter may extend either deadline. The debounced alarm
 * inputs and their episodes: `evaluator.ts`; the stored state's key is `equipment-remedy+field-remedy`.
 */
import { z } from 'zod';
import { holdParams } from '../hold.ts';
import type { RuleModule } from '../module.ts';
import { firstVersion } from '../state.ts';
import { type AlarmState, alarmEvaluator, type RemedyRule } from './evaluator.ts';

const params = {
  site: {
    ...holdParams,
    equipmentRemedyDays: z
      .number()
      .positive()
      .default(5)
      .describe('Alternative systems: days to remedy an equipment fault (law 000, 5.030 B 1 d).'),
    fieldRemedyDays: z
      .number()
      .positive()
      .default(30)
      .describe('Alternative systems: days to remedy an absorption field fault (law 000, 5.030 B 1 d).'),
  },
  device: {},
};

export const remedy: RuleModule<AlarmState, RemedyRule, typeof params> = {
  name: 'remedy',
  law: '000, 5.030 B 1 d',
  params,
  binds: {
    perDevice: (d, site) =>
      (d.kind === 'septic-panel' || d.kind === 'septic-tank') && site.kind === 'alternative-system',
  },
  state: { version: 1, upgrade: firstVersion },
  evaluator: alarmEvaluator,
  // The law lets a licensed engineer's letter extend a remedy deadline.
  duty: { meets: () => false, closesBegunAlerts: false, extendable: true, responsible: ['owner'] },
  report: { section: 'remedies', duty: true, pastDue: 'overdue' },
};
