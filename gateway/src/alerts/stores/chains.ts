/**
 * The alert engine's append-only tables (alert history, inspections, extensions): each row is an entry
 * of the evidence log, appended with it (the row keeps the entry's index, `log_idx`), and also chained by
 * hash to the one before it, hash = sha256(prev_hash + canonical JSON of its content columns). Triggers
 * (store/schema) abort any UPDATE or DELETE; this module appends rows and verifies the chains.
 */
import type Database from 'better-sqlite3';
import type { EvidenceLog } from '../../evidence/log.ts';
import {
  type AlertOf,
  type EntryType,
  extensionRecord,
  historyRecord,
  inspectionRecord,
  recordBody,
} from '../../evidence/records.ts';
import {
  type ChainCheck,
  type ChainHead,
  canonicalJson,
  GENESIS_HASH,
  HashChain,
  linkHash,
} from '../../store/chain.ts';
import type { Db } from '../types.ts';

/** Append-only tables and the columns their hash covers, in this order of keys (sorted when hashed). */
export const CHAINED_TABLES = {
  alert_history: ['seq', 'alert_id', 'at', 'source_at', 'actor', 'action', 'detail'],
  inspections: ['seq', 'id', 'site_id', 'at', 'inspector', 'kind', 'notes', 'recorded_at', 'recorded_by'],
  extensions: ['seq', 'alert_id', 'old_due', 'new_due', 'engineer', 'letter_ref', 'note', 'at', 'by'],
} as const;
export type ChainedTable = keyof typeof CHAINED_TABLES;

/** sha256(prev_hash + canonical JSON of the row's chained columns). */
export function chainHash(table: ChainedTable, prevHash: string, row: Record<string, unknown>): string {
  return linkHash(prevHash, chainedContent(table, row));
}

function chainedContent(table: ChainedTable, row: Record<string, unknown>): string {
  const content: Record<string, unknown> = {};
  for (const c of CHAINED_TABLES[table]) content[c] = row[c] ?? null;
  return canonicalJson(content);
}

/** How each table's row is logged: its entry type and its record. */
const LOGGED: Record<
  ChainedTable,
  {
    type: Exclude<EntryType, 'reading'>;
    ref: string;
    record(row: never, alert: AlertOf): Record<string, unknown>;
  }
> = {
  alert_history: { type: 'alert-history', ref: 'seq', record: historyRecord },
  inspections: { type: 'inspection', ref: 'seq', record: (row) => inspectionRecord(row) },
  extensions: { type: 'extension', ref: 'seq', record: extensionRecord },
};

/** The three chains: appending a linked, logged row, their heads, and their verification. */
export class EvidenceChains {
  private readonly chains: Record<ChainedTable, HashChain>;
  private readonly alertOf;

  constructor(
    db: Db,
    private readonly log: EvidenceLog,
  ) {
    this.alertOf = db.prepare<[string], AlertOf>('SELECT site_id AS siteId, rule FROM alerts WHERE id = ?');
    const chain = (table: ChainedTable) =>
      new HashChain(db, {
        table,
        seq: 'seq',
        content: (row) => chainedContent(table, row),
        storesPrev: true,
        contiguous: true,
      });
    this.chains = {
      alert_history: chain('alert_history'),
      inspections: chain('inspections'),
      extensions: chain('extensions'),
    };
  }

  /**
   * Appends a row linked to the chain's head with `insert` (named parameters, `@log_idx` among them) and
   * its log entry; call inside a transaction. Returns its seq and its entry's index.
   */
  append(
    table: ChainedTable,
    row: Record<string, unknown>,
    insert: Database.Statement,
  ): { seq: number; logIdx: number } {
    const head = this.chains[table].head();
    const seq = (head?.seq ?? 0) + 1;
    const prev = head?.hash ?? GENESIS_HASH;
    const full: Record<string, unknown> = { ...row, seq };
    for (const c of CHAINED_TABLES[table]) if (full[c] === undefined) full[c] = null;
    const how = LOGGED[table];
    const alert = typeof full.alert_id === 'string' ? this.alertOf.get(full.alert_id) : undefined;
    const body = recordBody(how.type, how.record(full as never, alert ?? { siteId: '', rule: '' }));
    const logIdx = this.log.nextIndex();
    insert.run({ ...full, prev_hash: prev, hash: chainHash(table, prev, full), log_idx: logIdx });
    this.log.append([
      { kind: how.type, ref: String(full[how.ref]), at: full.at as number, body, keepBody: true },
    ]);
    return { seq, logIdx };
  }

  /** The last row of a chain: what a report cites so later removal of rows can be detected. */
  chainHead(table: ChainedTable): ChainHead | null {
    return this.chains[table].head();
  }

  /**
   * Recomputes the chain of `table` over seq in [fromSeq, toSeq] and reports the first broken link:
   * a row whose hash does not match its content (altered), whose prev_hash is not the previous
   * row's hash, or a missing seq (removed).
   */
  verifyChain(
    fromSeq = 1,
    toSeq = Number.MAX_SAFE_INTEGER,
    table: ChainedTable = 'alert_history',
  ): ChainCheck {
    return this.chains[table].verify(fromSeq, toSeq);
  }
}
