/**
 * The alert engine's append-only tables (alert history, inspections, extensions, milestone notices,
 * notices of violation and stop-work orders with their events): each row is an entry
 * of the evidence log, appended with it in the same transaction (the row keeps the entry's index,
 * `log_idx`). The log is their one integrity mechanism: the start-up audit and every report check a row
 * against its entry. Rows from before schema version 7 were also hash-chained; those chains were verified
 * once by that migration (`store/schema/v7.ts`) and new rows are not chained: their `prev_hash` is empty
 * and their `hash` is their entry's leaf hash (hex), as a reading's is. Triggers (store/schema) abort any
 * UPDATE or DELETE.
 */
import type Database from 'better-sqlite3';
import {
  stopWorkEventRecord,
  stopWorkRecord,
  violationEventRecord,
  violationRecord,
} from '../../ledger/enforcementRecords.ts';
import { leafHash } from '../../ledger/merkle.ts';
import {
  type AlertOf,
  type EntryType,
  extensionRecord,
  historyRecord,
  inspectionRecord,
  noticeRecord,
  recordBody,
} from '../../ledger/records.ts';
import type { EvidenceLog } from '../../store/evidenceLog.ts';
import type { Db } from '../types.ts';

/** The append-only tables and the columns their logged record is made of. */
export const LOGGED_TABLES = {
  alert_history: ['seq', 'alert_id', 'at', 'source_at', 'actor', 'action', 'detail'],
  inspections: [
    'seq',
    'id',
    'site_id',
    'at',
    'inspector',
    'kind',
    'notes',
    'recorded_at',
    'recorded_by',
    'findings',
  ],
  extensions: ['seq', 'alert_id', 'old_due', 'new_due', 'engineer', 'letter_ref', 'note', 'at', 'by'],
  notices: ['seq', 'id', 'site_id', 'milestone', 'at', 'filed_at', 'filed_by', 'late', 'site_seq'],
  violations: [
    'seq',
    'id',
    'site_id',
    'site_seq',
    'inspection_id',
    'nature',
    'remedy',
    'remedy_due_at',
    'penalties',
    'at',
    'issued_by',
    'appeal_by',
    'parties',
  ],
  violation_events: ['seq', 'violation_id', 'kind', 'at', 'by', 'text', 'photos'],
  stop_work: ['seq', 'id', 'site_id', 'site_seq', 'reason', 'violation_ids', 'at', 'issued_by'],
  stop_work_events: ['seq', 'order_id', 'kind', 'at', 'by', 'note', 'override'],
} as const;
export type LoggedTable = keyof typeof LOGGED_TABLES;

/** How each table's row is logged: its entry type and its record (the start-up audit rebuilds it so). */
export const LOGGED: Record<
  LoggedTable,
  {
    type: Exclude<EntryType, 'reading'>;
    ref: string;
    /** The column that is the entry's time (default `at`; a notice's `at` is the milestone's, ahead). */
    at?: string;
    record(row: never, alert: AlertOf): Record<string, unknown>;
  }
> = {
  alert_history: { type: 'alert-history', ref: 'seq', record: historyRecord },
  inspections: { type: 'inspection', ref: 'seq', record: (row) => inspectionRecord(row) },
  extensions: { type: 'extension', ref: 'seq', record: extensionRecord },
  notices: { type: 'notice', ref: 'seq', at: 'filed_at', record: (row) => noticeRecord(row) },
  violations: { type: 'violation', ref: 'seq', record: (row) => violationRecord(row) },
  violation_events: { type: 'violation-event', ref: 'seq', record: (row) => violationEventRecord(row) },
  stop_work: { type: 'stop-work', ref: 'seq', record: (row) => stopWorkRecord(row) },
  stop_work_events: { type: 'stop-work-event', ref: 'seq', record: (row) => stopWorkEventRecord(row) },
};

/** Appends a row of one of the logged tables with its log entry. */
export class LoggedRows {
  private readonly lastSeqStmts: Record<LoggedTable, Database.Statement<[], { seq: number | null }>>;
  private readonly alertOf;

  constructor(
    db: Db,
    private readonly log: EvidenceLog,
  ) {
    this.alertOf = db.prepare<[string], AlertOf>('SELECT site_id AS siteId, rule FROM alerts WHERE id = ?');
    const last = (table: LoggedTable) =>
      db.prepare<[], { seq: number | null }>(`SELECT MAX(seq) AS seq FROM ${table}`);
    this.lastSeqStmts = {
      alert_history: last('alert_history'),
      inspections: last('inspections'),
      extensions: last('extensions'),
      notices: last('notices'),
      violations: last('violations'),
      violation_events: last('violation_events'),
      stop_work: last('stop_work'),
      stop_work_events: last('stop_work_events'),
    };
  }

  /**
   * Appends a row with `insert` (named parameters, `@log_idx`, `@prev_hash` and `@hash` among them) and
   * its log entry; call inside a transaction. Returns its seq and its entry's index.
   */
  append(
    table: LoggedTable,
    row: Record<string, unknown>,
    insert: Database.Statement,
  ): { seq: number; logIdx: number } {
    const seq = this.lastSeq(table) + 1;
    const full: Record<string, unknown> = { ...row, seq };
    for (const c of LOGGED_TABLES[table]) if (full[c] === undefined) full[c] = null;
    const how = LOGGED[table];
    const alert = typeof full.alert_id === 'string' ? this.alertOf.get(full.alert_id) : undefined;
    const body = recordBody(how.type, how.record(full as never, alert ?? { siteId: '', rule: '' }));
    const [logIdx] = this.log.append([
      {
        kind: how.type,
        ref: String(full[how.ref]),
        at: full[how.at ?? 'at'] as number,
        body,
        keepBody: true,
      },
    ]) as [number];
    insert.run({ ...full, prev_hash: '', hash: leafHash(body).toString('hex'), log_idx: logIdx });
    return { seq, logIdx };
  }

  /** The last row's seq in a table (0 when it is empty): the history as it is now ends there. */
  lastSeq(table: LoggedTable): number {
    return this.lastSeqStmts[table].get()?.seq ?? 0;
  }
}
