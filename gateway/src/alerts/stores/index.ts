/**
 * The alert engine's stores, one per table, each owning its prepared statements (the tables themselves
 * are store/schema's). The engine owns the transactions.
 */
import type { EvidenceLog } from '../../store/evidenceLog.ts';
import type { Db } from '../types.ts';
import { AlertStore } from './alerts.ts';
import { ExtensionStore } from './extensions.ts';
import { HistoryStore } from './history.ts';
import { InspectionStore } from './inspections.ts';
import { LoggedRows } from './logged.ts';
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
  logged: LoggedRows;
}

export function openAlertStores(db: Db, log: EvidenceLog): AlertStores {
  const logged = new LoggedRows(db, log);
  return {
    alerts: new AlertStore(db),
    history: new HistoryStore(db, logged),
    timers: new TimerStore(db),
    ruleStates: new RuleStateStore(db),
    storms: new StormStore(db, log),
    inspections: new InspectionStore(db, logged),
    extensions: new ExtensionStore(db, logged),
    logged,
  };
}
