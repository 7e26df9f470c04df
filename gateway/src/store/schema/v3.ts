/**
 * Version 3: the evidence log (an RFC 9162 Merkle tree over every record a report may cite).
 * - `log_entries`: one row per entry, in log order (`idx` from 0): its type (its position in
 *   `ENTRY_TYPES`, ledger/records.ts), the id of the record it
 *   logs, when it was appended, its canonical body when the record is not kept elsewhere in that form
 *   (NULL for readings, whose row is the record), and its leaf hash SHA-256(0x00 || body).
 * - `log_nodes`: complete subtrees of 2^level leaves (level >= 8) as they complete; smaller subtrees are
 *   computed from at most 256 leaf hashes, so proofs and tree heads read O(log n) rows.
 * - `log_checkpoints`: every signed checkpoint, with its note as published.
 * - `log_idx` on the records' own tables: the entry of a reading, history entry, inspection, extension,
 *   and the latest entry of a storm record.
 *
 * A store from release 0.1.0 had hash chains instead. They are verified here, every record is appended to
 * the log in its table's order, and the verification is itself the log's first entry after them
 * (`legacy-chains`), so the log says whether the records it took over were intact. From then on a
 * reading's `hash` is its leaf hash; the other tables kept their chains as well, until version 7.
 */

import { leafHash } from '../../ledger/merkle.ts';
import { readingBody, recordBody } from '../../ledger/records.ts';
import { EvidenceLog } from '../evidenceLog.ts';
import type { Db } from '../types.ts';
import { legacyChain, legacyReadingsChain } from './chains.ts';
import { legacyRecords } from './legacy.ts';

const LOG = `
CREATE TABLE IF NOT EXISTS log_entries (
  idx INTEGER PRIMARY KEY,
  kind INTEGER NOT NULL,
  ref NOT NULL,
  at INTEGER NOT NULL,
  body TEXT,
  leaf BLOB NOT NULL
);
-- Every entry that is not a reading (type 0): the records the start-up audit checks in full.
CREATE INDEX IF NOT EXISTS log_entries_records ON log_entries (idx) WHERE kind != 0;
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
ALTER TABLE readings ADD COLUMN log_idx INTEGER;
ALTER TABLE storms ADD COLUMN log_idx INTEGER;
ALTER TABLE alert_history ADD COLUMN log_idx INTEGER;
ALTER TABLE inspections ADD COLUMN log_idx INTEGER;
ALTER TABLE extensions ADD COLUMN log_idx INTEGER;
`;

export function v3(db: Db, now: number = Date.now()): void {
  db.exec(LOG);
  const records = legacyRecords(db);
  if (records.count === 0) return;
  // The chains of the records the log takes over, as they are now.
  const chains = [
    legacyReadingsChain(db).verify(),
    ...(['alert_history', 'inspections', 'extensions'] as const).map((t) => legacyChain(db, t).verify()),
  ];
  // Record rows get their entry's index: the append-only guards are applied again after the migration.
  for (const t of ['readings', 'alert_history', 'inspections', 'extensions'])
    for (const op of ['update', 'delete']) db.exec(`DROP TRIGGER IF EXISTS ${t}_no_${op}`);
  const log = new EvidenceLog(db);
  const setIdx = (table: string, key: string) =>
    db.prepare(`UPDATE ${table} SET log_idx = ? WHERE ${key} = ?`);
  const readingIdx = db.prepare('UPDATE readings SET log_idx = ?, hash = ? WHERE id = ?');
  for (const r of records.readings()) {
    const leaf = leafHash(readingBody(r));
    readingIdx.run(log.appendLeaf('reading', String(r.id), now, null, leaf), leaf.toString('hex'), r.id);
  }
  for (const [type, table, key, rows] of [
    ['alert-history', 'alert_history', 'seq', records.history()],
    ['inspection', 'inspections', 'seq', records.inspections()],
    ['extension', 'extensions', 'seq', records.extensions()],
    ['storm', 'storms', 'id', records.storms()],
  ] as const) {
    const update = setIdx(table, key);
    for (const { ref, record } of rows) {
      const body = recordBody(type, record);
      const idx = log.append([{ kind: type, ref, at: now, body, keepBody: true }])[0]!;
      update.run(idx, ref);
    }
  }
  const verdict = { chains, records: records.count };
  log.append([
    {
      kind: 'legacy-chains',
      ref: 'release-0.1.0',
      at: now,
      body: recordBody('legacy-chains', verdict),
      keepBody: true,
    },
  ]);
}
