/** The alert history: every change of an alert, append-only, each row logged (`logged.ts`). */
import { canonicalJson } from '../../ledger/canonical.ts';
import type { Db, HistoryInput, HistoryRow } from '../types.ts';
import type { LoggedRows } from './logged.ts';

export class HistoryStore {
  private readonly stmts;

  constructor(
    db: Db,
    private readonly logged: LoggedRows,
  ) {
    this.stmts = {
      of: db.prepare<[string], HistoryRow>(
        'SELECT *, (SELECT leaf FROM log_entries WHERE idx = log_idx) AS leaf FROM alert_history WHERE alert_id = ? ORDER BY seq',
      ),
      upTo: db.prepare<[string, number], HistoryRow>(
        'SELECT *, (SELECT leaf FROM log_entries WHERE idx = log_idx) AS leaf FROM alert_history WHERE alert_id = ? AND seq <= ? ORDER BY seq',
      ),
      ofMany: db.prepare<[string], HistoryRow>(
        `SELECT *, (SELECT leaf FROM log_entries WHERE idx = log_idx) AS leaf FROM alert_history WHERE alert_id IN (SELECT value FROM json_each(?)) ORDER BY seq`,
      ),
      insert: db.prepare(
        `INSERT INTO alert_history (seq, alert_id, at, source_at, actor, action, detail, prev_hash, hash, log_idx,
           alert_seq)
         VALUES (@seq, @alert_id, @at, @source_at, @actor, @action, @detail, @prev_hash, @hash, @log_idx,
           @alert_seq)`,
      ),
      count: db.prepare<[string], { n: number }>(
        'SELECT COUNT(*) AS n FROM alert_history WHERE alert_id = ?',
      ),
    };
  }

  of(alertId: string): HistoryRow[] {
    return this.stmts.of.all(alertId);
  }

  /** An alert's history up to `seq` (the last seq at some time): the history as it was then. */
  upTo(alertId: string, seq: number): HistoryRow[] {
    return this.stmts.upTo.all(alertId, seq);
  }

  /** The history of several alerts, by alert id. */
  ofMany(alertIds: string[]): Map<string, HistoryRow[]> {
    const out = new Map<string, HistoryRow[]>();
    if (alertIds.length === 0) return out;
    for (const h of this.stmts.ofMany.all(JSON.stringify(alertIds))) {
      let list = out.get(h.alert_id);
      if (!list) {
        list = [];
        out.set(h.alert_id, list);
      }
      list.push(h);
    }
    return out;
  }

  /** Appends an entry; returns its seq. Call inside a transaction. */
  append(h: HistoryInput): number {
    const { seq } = this.logged.append(
      'alert_history',
      {
        alert_id: h.alertId,
        at: h.at,
        source_at: h.sourceAt,
        actor: h.actor,
        action: h.action,
        detail: canonicalJson(h.detail),
        // Its place in the alert's history: a report citing the history shows a removed entry as a gap.
        alert_seq: this.stmts.count.get(h.alertId)!.n + 1,
      },
      this.stmts.insert,
    );
    return seq;
  }
}
