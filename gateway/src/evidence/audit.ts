/**
 * Checks the store against its evidence log: each entry against the record it logs (the record is there,
 * points back at its entry, and serialises to the entry's leaf), the stored subtrees against the leaves,
 * and signed checkpoints against the tree. Anything edited, removed or truncated since it was logged
 * shows as a problem with the entry's index and the reason.
 *
 * `checkEntries` takes a range, so a caller can check a store of any size in slices that leave the
 * event loop free between them (the evidence stage does, at start, and then keeps up with new entries).
 */

import { ALERT_LOGGED, type LoggedTable } from '../alerts/stores/logged.ts';
import { ENFORCEMENT_LOGGED } from '../enforcement/stores/logged.ts';
import { Frontier, type Hash, leafHash } from '../ledger/merkle.ts';
import { type EntryType, readingBody, recordBody } from '../ledger/records.ts';
import { codeOf, type EvidenceLog, type LogEntry } from '../store/evidenceLog.ts';
import { rowToReading } from '../store/readings.ts';
import { stormRowBody } from '../store/stormRecords.ts';
import type { Db } from '../store/types.ts';

export interface Problem {
  idx: number;
  kind: string;
  reason: string;
}

type Row = Record<string, unknown>;

/** Where each kind of record lives, and how its row serialises. */
interface RecordTable {
  table: string;
  key: string;
  body(row: Row, entry: LogEntry): string;
}

export class EvidenceAudit {
  private readonly tables: Partial<Record<EntryType, RecordTable>>;
  private readonly stmts;
  private readonly alertOf;

  constructor(
    private readonly db: Db,
    private readonly log: EvidenceLog,
  ) {
    this.alertOf = db.prepare<[string], { siteId: string; rule: string }>(
      'SELECT site_id AS siteId, rule FROM alerts WHERE id = ?',
    );
    const of = (id: unknown) =>
      (typeof id === 'string' ? this.alertOf.get(id) : undefined) ?? { siteId: '', rule: '' };
    // The alert engine's and enforcement's append-only tables, each row serialised as it was when logged.
    const logged: Array<[string, LoggedTable]> = [
      ...Object.entries(ALERT_LOGGED),
      ...Object.entries(ENFORCEMENT_LOGGED),
    ];
    const appended = logged.map(([table, how]) => [
      how.type,
      {
        table,
        key: how.ref,
        body: (r: Row) => recordBody(how.type, how.record(r as never, of(r.alert_id))),
      },
    ]);
    this.tables = {
      reading: { table: 'readings', key: 'id', body: (r) => readingBody(rowToReading(r)) },
      ...(Object.fromEntries(appended) as Partial<Record<EntryType, RecordTable>>),
      storm: {
        table: 'storms',
        key: 'id',
        // The row as the entry logged it; the readings it rests on are the entry's own account.
        body: (r, e) => stormRowBody(r, e.body),
      },
    };
    const rowOf = (t: RecordTable) =>
      db.prepare<[string], Row>(`SELECT * FROM ${t.table} WHERE ${t.key} = ?`);
    this.stmts = {
      rows: Object.fromEntries(Object.entries(this.tables).map(([k, t]) => [k, rowOf(t)])) as Record<
        string,
        ReturnType<typeof rowOf>
      >,
      prunedUpTo: db.prepare<[], { id: number | null }>(
        `SELECT MAX(CAST(ref AS INTEGER)) AS id FROM log_entries WHERE kind != 0 AND kind = ${codeOf('retention')}`,
      ),
      nodes: db.prepare<[number, number], { level: number; idx: number; hash: Buffer }>(
        'SELECT level, idx, hash FROM log_nodes WHERE level = ? AND idx = ?',
      ),
    };
  }

  /** Checks entries [from, to) against their records; at most `limit` problems. */
  checkEntries(from: number, to: number, limit = 20): Problem[] {
    const problems: Problem[] = [];
    const prunedUpTo = this.stmts.prunedUpTo.get()?.id ?? 0;
    let expected = from;
    for (const e of this.log.entries(from, to)) {
      if (e.idx !== expected) {
        problems.push({
          idx: expected,
          kind: 'log',
          reason: `entries ${expected} to ${e.idx - 1} are missing`,
        });
        if (problems.length >= limit) break;
      }
      expected = e.idx + 1;
      const reason = this.checkEntry(e, prunedUpTo);
      if (reason) {
        problems.push({ idx: e.idx, kind: e.kind, reason });
        if (problems.length >= limit) break;
      }
    }
    return problems;
  }

  private checkEntry(e: LogEntry, prunedUpTo: number): string | undefined {
    if (e.body !== null && !leafHash(e.body).equals(e.leaf)) return 'its body does not hash to its leaf';
    const t = this.tables[e.kind as EntryType];
    if (!t) return e.body === null ? 'an entry of this kind keeps its body' : undefined;
    const row = this.stmts.rows[e.kind]!.get(e.ref);
    if (!row) {
      if (e.kind === 'reading' && Number(e.ref) <= prunedUpTo) return undefined;
      return `its ${t.table} record ${e.ref} is missing`;
    }
    const latest = row.log_idx === e.idx;
    if (e.kind === 'storm' && !latest) return undefined; // a later entry supersedes this version
    if (!latest) return `its ${t.table} record ${e.ref} names entry ${String(row.log_idx)}, not this one`;
    const body = t.body(row, e);
    if (!leafHash(body).equals(e.leaf))
      return `its ${t.table} record ${e.ref} was changed after it was logged`;
    return undefined;
  }

  /**
   * Rebuilds the tree over leaves [0, size) and compares every stored subtree on the way; returns the
   * root, or the first stored subtree that differs. O(size): for a full audit in slices, see `TreeAudit`.
   */
  treeAudit(): TreeAudit {
    return new TreeAudit(this.log, (level, index) => this.stmts.nodes.get(level, index)?.hash);
  }

  /** Records of the tables the log covers that have no entry (inserted behind the gateway's back). */
  unlogged(): Problem[] {
    const out: Problem[] = [];
    for (const [kind, t] of Object.entries(this.tables)) {
      const r = this.db
        .prepare(`SELECT ${t.key} AS ref FROM ${t.table} WHERE log_idx IS NULL LIMIT 1`)
        .get() as { ref: unknown } | undefined;
      if (r) out.push({ idx: -1, kind, reason: `${t.table} record ${String(r.ref)} has no log entry` });
    }
    return out;
  }
}

/** A rebuild of the tree from its leaves, fed in slices; compares every stored subtree it completes. */
export class TreeAudit {
  private readonly frontier = new Frontier();
  problem: Problem | undefined;

  constructor(
    private readonly log: EvidenceLog,
    private readonly stored: (level: number, index: number) => Hash | undefined,
  ) {}

  get size(): number {
    return this.frontier.size;
  }

  /** Takes the next `n` leaves; returns false once every leaf is in or a problem was found. */
  step(n: number, upTo: number = this.log.size()): boolean {
    if (this.problem) return false;
    const to = Math.min(upTo, this.frontier.size + n);
    for (const e of this.log.entries(this.frontier.size, to)) {
      this.frontier.append(e.leaf, (level, index, h) => {
        if (this.problem || level < 8) return;
        const s = this.stored(level, index);
        if (!s?.equals(h))
          this.problem = {
            idx: index * 2 ** level,
            kind: 'tree',
            reason: `stored subtree ${level}/${index} does not match its leaves`,
          };
      });
      if (this.problem) return false;
    }
    return this.frontier.size < upTo;
  }

  root(): Hash {
    return this.frontier.root();
  }
}
