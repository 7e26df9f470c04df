/**
 * The append-only tables whose rows are entries of the evidence log: each row is appended with its entry
 * in the same transaction (the row keeps the entry's index, `log_idx`). The log is their one integrity
 * mechanism: the start-up audit and every report check a row against its entry. Rows from before schema
 * version 7 were also hash-chained; those chains were verified once by that migration
 * (`store/schema/v7.ts`) and new rows are not chained: their `prev_hash` is empty and their `hash` is
 * their entry's leaf hash (hex), as a reading's is. Triggers (store/schema) abort any UPDATE or DELETE.
 *
 * Each owner lists its own tables (`LoggedTables`): the alert engine its alert history, inspections and
 * extensions (`ALERT_LOGGED` here), enforcement its notices and orders (`enforcement/stores/logged.ts`).
 */
import type Database from 'better-sqlite3';
import { leafHash } from '../../ledger/merkle.ts';
import {
  type AlertOf,
  type EntryType,
  extensionRecord,
  historyRecord,
  inspectionRecord,
  recordBody,
} from '../../ledger/records.ts';
import type { EvidenceLog } from '../../store/evidenceLog.ts';
import type { Db } from '../types.ts';

/** How a logged table's row becomes its entry: the columns its record is made of, its type and record. */
export interface LoggedTable {
  columns: readonly string[];
  type: Exclude<EntryType, 'reading'>;
  /** The column the entry refers to the row by. */
  ref: string;
  /** The column that is the entry's time (default `at`; a notice's `at` is the milestone's, ahead). */
  at?: string;
  record(row: never, alert: AlertOf): Record<string, unknown>;
}
export type LoggedTables<T extends string = string> = Readonly<Record<T, LoggedTable>>;

/** The alert engine's logged tables. */
export const ALERT_LOGGED = {
  alert_history: {
    columns: ['seq', 'alert_id', 'at', 'source_at', 'actor', 'action', 'detail'],
    type: 'alert-history',
    ref: 'seq',
    record: historyRecord,
  },
  inspections: {
    columns: [
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
      'details',
      'side',
      'practices',
      'covered',
      'signature',
    ],
    type: 'inspection',
    ref: 'seq',
    record: (row) => inspectionRecord(row),
  },
  extensions: {
    columns: ['seq', 'alert_id', 'old_due', 'new_due', 'engineer', 'letter_ref', 'note', 'at', 'by'],
    type: 'extension',
    ref: 'seq',
    record: extensionRecord,
  },
} as const satisfies LoggedTables;
export type AlertLoggedTable = keyof typeof ALERT_LOGGED;

/** Appends a row of one of its logged tables with its log entry (the alert engine's, unless told others). */
export class LoggedRows<T extends string = AlertLoggedTable> {
  private readonly lastSeqStmts: Record<T, Database.Statement<[], { seq: number | null }>>;
  private readonly alertOf;

  constructor(
    db: Db,
    /** The evidence log, or what appends to it inside the caller's transaction. */
    private readonly log: Pick<EvidenceLog, 'append'>,
    private readonly tables: LoggedTables<T> = ALERT_LOGGED as unknown as LoggedTables<T>,
  ) {
    this.alertOf = db.prepare<[string], AlertOf>('SELECT site_id AS siteId, rule FROM alerts WHERE id = ?');
    this.lastSeqStmts = Object.fromEntries(
      Object.keys(tables).map((table) => [
        table,
        db.prepare<[], { seq: number | null }>(`SELECT MAX(seq) AS seq FROM ${table}`),
      ]),
    ) as Record<T, Database.Statement<[], { seq: number | null }>>;
  }

  /**
   * Appends a row with `insert` (named parameters, `@log_idx`, `@prev_hash` and `@hash` among them) and
   * its log entry; call inside a transaction. Returns its seq and its entry's index.
   */
  append(
    table: T,
    row: Record<string, unknown>,
    insert: Database.Statement,
  ): { seq: number; logIdx: number } {
    const seq = this.lastSeq(table) + 1;
    const full: Record<string, unknown> = { ...row, seq };
    const how = this.tables[table];
    for (const c of how.columns) if (full[c] === undefined) full[c] = null;
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
  lastSeq(table: T): number {
    return this.lastSeqStmts[table].get()?.seq ?? 0;
  }
}
