/**
 * Certifications: an inspector or engineer states, through the API, that a site's records for a period
 * are true; the statement is an entry of the evidence log naming the person, their role, the period, and
 * the checkpoint it was made against. Reports list those of their site whose period overlaps theirs.
 */

import { recordBody } from '../ledger/records.ts';
import { codeOf, type EvidenceLog } from '../store/evidenceLog.ts';
import type { Db } from '../store/types.ts';

export interface CertificationRecord {
  siteId: string;
  from: number;
  to: number;
  by: string;
  role: string;
  statement: string;
  at: number;
  checkpoint: { size: number; root: string };
}

export function certify(log: EvidenceLog, c: CertificationRecord): number {
  return log.append([
    {
      kind: 'certification',
      ref: c.siteId,
      at: c.at,
      body: recordBody('certification', { ...c }),
      keepBody: true,
    },
  ])[0]!;
}

/** The certifications of a site whose period overlaps [from, to), oldest first. */
export function certificationsOf(db: Db, siteId: string, from: number, to: number) {
  const rows = db
    .prepare<[number, string], { idx: number; body: string }>(
      'SELECT idx, body FROM log_entries WHERE kind != 0 AND kind = ? AND ref = ? ORDER BY idx',
    )
    .all(codeOf('certification'), siteId);
  return rows
    .map((r) => ({ logIndex: r.idx, ...(JSON.parse(r.body) as CertificationRecord) }))
    .filter((c) => c.from < to && c.to > from);
}
