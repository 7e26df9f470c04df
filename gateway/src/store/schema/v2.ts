/**
 * Version 2: the evidence log (RFC 9162 Merkle tree over every record a report may cite).
 * - `log_entries`: one row per entry, in log order (`idx` from 0): its kind, the id of the record it
 *   logs, when it was appended, its canonical serialisation when the record is not kept elsewhere in
 *   that form (NULL for readings, whose row is the record), and its leaf hash SHA-256(0x00 || body).
 * - `log_nodes`: complete subtrees of 2^level leaves (level >= 8) as they complete; smaller subtrees are
 *   computed from at most 256 leaf hashes. Proofs and checkpoints read O(log n) rows.
 * - `log_checkpoints`: every signed checkpoint, with its note as published.
 */
import type { Db } from '../db.ts';

const LOG = `
CREATE TABLE IF NOT EXISTS log_entries (
  idx INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  ref TEXT NOT NULL,
  at INTEGER NOT NULL,
  body TEXT,
  leaf BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS log_nodes (
  level INTEGER NOT NULL,
  idx INTEGER NOT NULL,
  hash BLOB NOT NULL,
  PRIMARY KEY (level, idx)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS log_checkpoints (
  size INTEGER PRIMARY KEY,
  root BLOB NOT NULL,
  at INTEGER NOT NULL,
  note TEXT NOT NULL
);
`;

export function v2(db: Db): void {
  db.exec(LOG);
}
