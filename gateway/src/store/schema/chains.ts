/**
 * The per-table hash chains of earlier releases, kept only to verify them once when a store is migrated
 * (versions 3 and 7, whose verdicts are `legacy-chains` entries of the evidence log). Release 0.1.0
 * chained readings, alert history, inspections and extensions; from schema version 3 a reading's `hash`
 * is its log entry's leaf hash and readings are no longer chained; from version 7 no table is, the
 * evidence log being the one integrity mechanism. Each chained row's hash was sha256(previous row's hash
 * + the row's content), the content being the table's canonical serialisation of the row; the first row
 * links to GENESIS_HASH. Retention of 0.1.0 recorded the hash of the newest deleted row as an anchor
 * (`chain_anchors`), from which verification of the remaining rows starts.
 *
 * Verification gives one result shape for every chain (`ChainCheck`): the first row that was altered
 * (`hash-mismatch`), whose stored link does not match its predecessor (`prev-mismatch`), or where a row
 * is missing (`gap`, for chains whose sequence has no holes).
 */
import { hash } from 'node:crypto';
import { z } from 'zod';
import { canonicalJson } from '../../ledger/canonical.ts';
import type { Db } from '../types.ts';

export const GENESIS_HASH = '0'.repeat(64);

/** One link: sha256 over the previous hash followed by the row's content, in hex. */
export function linkHash(prev: string, content: string): string {
  return hash('sha256', prev + content, 'hex');
}

export const chainHeadSchema = z.object({ seq: z.number().int(), hash: z.string() });
export type ChainHead = z.infer<typeof chainHeadSchema>;

export const chainCheckSchema = z.object({
  table: z.string(),
  ok: z.boolean(),
  checked: z.number().int(),
  head: chainHeadSchema.nullable(),
  broken: z
    .object({
      seq: z.number().int(),
      reason: z.enum(['hash-mismatch', 'prev-mismatch', 'gap']),
    })
    .optional(),
});
export type ChainCheck = z.infer<typeof chainCheckSchema>;

/** How one table is chained. */
export interface ChainSpec {
  /** The table, also the chain's name in `chain_anchors` and in results. */
  table: string;
  /** The column that orders the chain (an integer key). */
  seq: string;
  /** The row's content as hashed, from the row as stored. */
  content(row: Record<string, unknown>): string;
  /** Whether each row stores its predecessor's hash in `prev_hash` (checked as its own link). */
  storesPrev: boolean;
  /** Whether the sequence has no holes, so a missing number is a removed row. */
  contiguous: boolean;
}

/** A chained table of an earlier release: its head and the verification of its links. */
export class HashChain {
  private readonly headStmt;

  constructor(
    private readonly db: Db,
    readonly spec: ChainSpec,
  ) {
    this.headStmt = db.prepare<[], ChainHead>(
      `SELECT ${spec.seq} AS seq, hash FROM ${spec.table} ORDER BY ${spec.seq} DESC LIMIT 1`,
    );
  }

  /** The last row. */
  head(): ChainHead | null {
    return this.headStmt.get() ?? null;
  }

  /** Recomputes the chain over seq in [fromSeq, toSeq] and reports the first broken link. */
  verify(fromSeq = 1, toSeq = Number.MAX_SAFE_INTEGER): ChainCheck {
    const { table, seq: col } = this.spec;
    const head = this.head();
    let prevHash = GENESIS_HASH;
    let prevSeq: number | undefined;
    const first = this.db
      .prepare<[number], { seq: number }>(`SELECT MIN(${col}) AS seq FROM ${table} WHERE ${col} >= ?`)
      .get(fromSeq)?.seq;
    if (first !== null && first !== undefined) {
      const before = this.db
        .prepare<[number], ChainHead>(
          `SELECT ${col} AS seq, hash FROM ${table} WHERE ${col} < ? ORDER BY ${col} DESC LIMIT 1`,
        )
        .get(first);
      const anchor = this.db
        .prepare<[string, number], ChainHead>(
          'SELECT upto_id AS seq, hash FROM chain_anchors WHERE chain = ? AND upto_id < ? ORDER BY upto_id DESC LIMIT 1',
        )
        .get(table, first);
      const link = before && (!anchor || before.seq > anchor.seq) ? before : anchor;
      if (link) {
        prevHash = link.hash;
        prevSeq = link.seq;
      } else if (this.spec.contiguous) prevSeq = 0;
      if (this.spec.contiguous && fromSeq > 1 && !before && !anchor)
        return { table, ok: false, checked: 0, head, broken: { seq: fromSeq - 1, reason: 'gap' } };
    }
    let checked = 0;
    const rows = this.db
      .prepare<[number, number], Record<string, unknown>>(
        `SELECT * FROM ${table} WHERE ${col} >= ? AND ${col} <= ? ORDER BY ${col}`,
      )
      .iterate(fromSeq, toSeq);
    for (const row of rows) {
      const seq = row[col] as number;
      if (this.spec.contiguous && prevSeq !== undefined && seq !== prevSeq + 1)
        return { table, ok: false, checked, head, broken: { seq: prevSeq + 1, reason: 'gap' } };
      if (this.spec.storesPrev && row.prev_hash !== prevHash)
        return { table, ok: false, checked, head, broken: { seq, reason: 'prev-mismatch' } };
      if (linkHash(prevHash, this.spec.content(row)) !== row.hash)
        return { table, ok: false, checked, head, broken: { seq, reason: 'hash-mismatch' } };
      prevHash = row.hash as string;
      prevSeq = seq;
      checked++;
    }
    return { table, ok: true, checked, head };
  }
}

/** Release 0.1.0's readings chain: sha256(prev + "|" + identity and content), rows in id order. */
export function legacyReadingsChain(db: Db): HashChain {
  return new HashChain(db, {
    table: 'readings',
    seq: 'id',
    content: (r) => `|${r.site_id}|${r.device_id}|${r.kind}|${r.ts}|${r.seq ?? ''}|${r.data}`,
    storesPrev: false,
    contiguous: false,
  });
}

/** The tables chained until schema version 7, and the columns their hash covered (sorted when hashed). */
export const CHAINED = {
  alert_history: ['seq', 'alert_id', 'at', 'source_at', 'actor', 'action', 'detail'],
  inspections: ['seq', 'id', 'site_id', 'at', 'inspector', 'kind', 'notes', 'recorded_at', 'recorded_by'],
  extensions: ['seq', 'alert_id', 'old_due', 'new_due', 'engineer', 'letter_ref', 'note', 'at', 'by'],
} as const;
export type ChainedTable = keyof typeof CHAINED;

/** The content a chained row's hash covered: canonical JSON of its chained columns. */
export function chainedContent(table: ChainedTable, row: Record<string, unknown>): string {
  return canonicalJson(Object.fromEntries(CHAINED[table].map((c) => [c, row[c] ?? null])));
}

/** One of the tables chained until schema version 7. */
export function legacyChain(db: Db, table: ChainedTable): HashChain {
  return new HashChain(db, {
    table,
    seq: 'seq',
    content: (row) => chainedContent(table, row),
    storesPrev: true,
    contiguous: true,
  });
}
