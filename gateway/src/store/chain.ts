/**
 * The one hash chain, used by every append-only table a report may cite (readings, alert history,
 * inspections, extensions). Each row's hash is sha256(previous row's hash + the row's content), the
 * content being the table's canonical serialisation of the row; the first row links to GENESIS_HASH.
 * Retention may delete a chain's oldest rows: it first records the hash of the newest deleted row as
 * an anchor (`chain_anchors`), from which verification of the remaining rows starts.
 *
 * Verification gives one result shape for every chain (`ChainCheck`): the first row that was altered
 * (`hash-mismatch`), whose stored link does not match its predecessor (`prev-mismatch`), or where a row
 * is missing (`gap`, for chains whose sequence has no holes).
 */
import { hash } from 'node:crypto';
import { z } from 'zod';
import type { Db } from './types.ts';

export const GENESIS_HASH = '0'.repeat(64);

/** JSON with object keys sorted at every level and undefined members left out: the form that is hashed. */
export function canonicalJson(v: unknown): string {
  return JSON.stringify(sortKeys(v));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === 'object') {
    const src = v as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(src).sort()) if (src[k] !== undefined) out[k] = sortKeys(src[k]);
    return out;
  }
  return v;
}

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

/** A chained table: its head, the next link, anchors for retention, and verification. */
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

  /** The last row: what a report cites, so later removal of rows can be detected. */
  head(): ChainHead | null {
    return this.headStmt.get() ?? null;
  }

  /** Records that rows up to `seq` (whose hash is `hash`) are about to be deleted by retention. */
  anchor(seq: number, rowHash: string, at: number): void {
    this.db
      .prepare('INSERT INTO chain_anchors (chain, upto_id, hash, at) VALUES (?, ?, ?, ?)')
      .run(this.spec.table, seq, rowHash, at);
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
