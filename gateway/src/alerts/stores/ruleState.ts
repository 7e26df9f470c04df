/**
 * The rules' states: one JSON row per binding, keyed (site, rule, device or ''); the rule column is the
 * binding's rule ids joined by `+` (the remedy module's two ids, for its evaluator), as release 0.1.0
 * stored it.
 */
import type { Db } from '../types.ts';

export class RuleStateStore {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      load: db.prepare<[string, string, string], { state: string }>(
        'SELECT state FROM rule_state WHERE site_id = ? AND rule = ? AND device_id = ?',
      ),
      save: db.prepare(
        `INSERT INTO rule_state (site_id, rule, device_id, state, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (site_id, rule, device_id) DO UPDATE SET state = excluded.state,
           updated_at = excluded.updated_at`,
      ),
    };
  }

  load(siteId: string, rule: string, deviceId: string): string | undefined {
    return this.stmts.load.get(siteId, rule, deviceId)?.state;
  }

  save(siteId: string, rule: string, deviceId: string, state: string, now: number): void {
    this.stmts.save.run(siteId, rule, deviceId, state, now);
  }
}
