/** The alert engine's metrics (Prometheus text at /metrics). */
import type { Counter, Histogram, Registry } from '../metrics.ts';

export interface EngineMetrics {
  raised: Counter;
  resolved: Counter;
  overdue: Counter;
  reminders: Counter;
  ruleErrors: Counter;
  ignored: Counter;
  unknownSite: Counter;
  batchSeconds: Histogram;
  tickSeconds: Histogram;
}

/** Registers the engine's metrics; `openCounts` gives the unresolved alerts (undefined once the store is closed). */
export function engineMetrics(
  reg: Registry,
  openCounts: () => Array<{ rule: string; status: string; n: number }> | undefined,
  stateCache: () => { states: number; bytes: number; dropped: number },
): EngineMetrics {
  const m: EngineMetrics = {
    raised: reg.counter('gateway_alerts_raised_total', 'Alerts raised, by rule'),
    resolved: reg.counter('gateway_alerts_resolved_total', 'Alerts resolved, by rule and how (auto, manual)'),
    overdue: reg.counter('gateway_alerts_overdue_total', 'Alerts that passed their due time, by rule'),
    reminders: reg.counter('gateway_alert_reminders_total', 'Reminders sent before a due time, by rule'),
    ruleErrors: reg.counter('gateway_rule_errors_total', 'Evaluator calls that threw, by rule'),
    ignored: reg.counter(
      'gateway_rule_effects_ignored_total',
      'Effects that changed nothing (unknown key or resolved alert), by type',
    ),
    unknownSite: reg.counter(
      'gateway_rule_unknown_site_total',
      'Readings for a site not in the configuration',
    ),
    batchSeconds: reg.histogram(
      'gateway_rules_batch_seconds',
      'Time to evaluate and apply one batch of readings',
    ),
    tickSeconds: reg.histogram('gateway_rules_tick_seconds', 'Time of one engine tick'),
  };
  reg.gauge('gateway_alerts_active', 'Unresolved alerts, by rule and status').collect((set) => {
    for (const r of openCounts() ?? []) set(r.n, { rule: r.rule, status: r.status });
  });
  reg
    .gauge('gateway_rule_state_cache', 'Rule states held in memory: states, and their estimated bytes')
    .collect((set) => {
      const c = stateCache();
      set(c.states, { measure: 'states' });
      set(c.bytes, { measure: 'bytes' });
    });
  reg
    .gauge(
      'gateway_rule_state_cache_dropped',
      'Rule states dropped from memory for its budget since start (read from the store again when needed)',
    )
    .collect((set) => set(stateCache().dropped));
  return m;
}
