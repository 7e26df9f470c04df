/**
 * Version 7: the evidence log is the one integrity mechanism. Until now alert history, inspections and
 * extensions were hash-chained (`chains.ts`) as well as logged. Their chains are verified here, once:
 * when they hold rows that no earlier verdict covers (version 3's covers the rows of release 0.1.0), the
 * verdict is appended to the log as a `legacy-chains` entry (ref `schema-7`), so the log says whether the
 * chained rows were intact when the chains ended. Rows appended from now on are not chained: their
 * `prev_hash` is empty and their `hash` is their entry's leaf hash (hex), as a reading's is. The columns
 * stay as they are (no table is rewritten); nothing checks them any more.
 */
import { recordBody } from '../../ledger/records.ts';
import { codeOf, EvidenceLog } from '../evidenceLog.ts';
import type { Db } from '../types.ts';
import { CHAINED, type ChainedTable, legacyChain } from './chains.ts';

export function v7(db: Db, now: number = Date.now()): void {
  const verdict = db
    .prepare<[number], { idx: number | null }>('SELECT MAX(idx) AS idx FROM log_entries WHERE kind = ?')
    .get(codeOf('legacy-chains'));
  const coveredUpTo = verdict?.idx ?? -1;
  const tables = Object.keys(CHAINED) as ChainedTable[];
  const uncovered = tables.reduce(
    (n, t) =>
      n +
      db
        .prepare<[number], { n: number }>(
          `SELECT COUNT(*) AS n FROM ${t} WHERE prev_hash != '' AND (log_idx IS NULL OR log_idx > ?)`,
        )
        .get(coveredUpTo)!.n,
    0,
  );
  if (uncovered === 0) return;
  const chains = tables.map((t) => legacyChain(db, t).verify());
  new EvidenceLog(db).append([
    {
      kind: 'legacy-chains',
      ref: 'schema-7',
      at: now,
      body: recordBody('legacy-chains', { chains, records: uncovered }),
      keepBody: true,
    },
  ]);
}
