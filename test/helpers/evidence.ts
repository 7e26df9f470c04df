/** Test helpers for stores that log to the evidence log. */
import { EvidenceAudit, type Problem } from '../../gateway/src/evidence/audit.ts';
import { EvidenceLog } from '../../gateway/src/store/evidenceLog.ts';
import { ReadingStore } from '../../gateway/src/store/readings.ts';
import type { Db } from '../../gateway/src/store/types.ts';

/** A readings store on `db` with its evidence log. */
export function readingStore(db: Db): { store: ReadingStore; log: EvidenceLog } {
  const log = new EvidenceLog(db);
  return { store: new ReadingStore(db, log), log };
}

/** Every entry of the log checked against its record, and the tree against its stored subtrees. */
export function auditAll(
  db: Db,
  log: EvidenceLog = new EvidenceLog(db),
): { size: number; problems: Problem[] } {
  const audit = new EvidenceAudit(db, log);
  const problems = [...audit.checkEntries(0, log.size()), ...audit.unlogged()];
  const tree = audit.treeAudit();
  while (tree.step(100_000));
  if (tree.problem) problems.push(tree.problem);
  else if (!tree.root().equals(log.root()))
    problems.push({ idx: log.size(), kind: 'tree', reason: 'root differs' });
  return { size: log.size(), problems };
}
