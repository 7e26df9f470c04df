/**
 * The alert engine's stores, one per table, each owning its prepared statements (the tables themselves
 * are store/schema's). The engine owns the transactions.
 */
import type { EvidenceLog } from '../../evidence/log.ts';
import type { Db } from '../types.ts';
import { AlertStore } from './alerts.ts';
import { EvidenceChains } from './chains.ts';
import { ExtensionStore } from './extensions.ts';
import { HistoryStore } from './history.ts';
import { InspectionStore } from './inspections.ts';
import { RuleStateStore } from './ruleState.ts';
import { StormStore } from './storms.ts';
import { TimerStore } from './timers.ts';

export interface AlertStores {
  alerts: AlertStore;
  history: HistoryStore;
  timers: TimerStore;
  ruleStates: RuleStateStore;
  storms: StormStore;
  inspections: InspectionStore;
  extensions: ExtensionStore;
  chains: EvidenceChains;
}

export function openAlertStores(db: Db, log: EvidenceLog): AlertStores {
  const chains = new EvidenceChains(db, log);
  return {
    alerts: new AlertStore(db),
    history: new HistoryStore(db, chains),
    timers: new TimerStore(db),
    ruleStates: new RuleStateStore(db),
    storms: new StormStore(db, log),
    inspections: new InspectionStore(db, chains),
    extensions: new ExtensionStore(db, chains),
    chains,
  };
}
