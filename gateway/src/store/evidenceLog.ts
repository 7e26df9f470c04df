/**
 * The evidence log in the store: an append-only list of entries hashed as an RFC 9162 Merkle tree.
 *
 * Appending runs inside the caller's transaction (the record and its entry commit together) and is
 * constant work per entry: the leaf row, the in-memory right edge of the tree (`Frontier`), and one
 * `log_nodes` row per completed subtree of 256 or more leaves. The tree head of any size, inclusion,
 * consistency and range proofs read O(log n) rows. A transaction that rolled back leaves the in-memory
 * edge ahead of the store; the next append notices (the store's last index differs) and rebuilds it.
 */
import type { Statement } from 'better-sqlite3';
import {
  consistencyProof,
  Frontier,
  type Hash,
  inclusionProof,
  type LeafRanges,
  leafHash,
  nodeHash,
  rangeProof,
  rangeProofSteps,
  rangeRoot,
  type SubtreeSource,
  treeRoot,
} from '../ledger/merkle.ts';
import { ENTRY_TYPES, type EntryType } from '../ledger/records.ts';
import type { Db } from './types.ts';

/** An entry's type is stored as its position in ENTRY_TYPES (a list that only ever grows at its end). */
const CODE = new Map<string, number>(ENTRY_TYPES.map((t, i) => [t, i]));
export const codeOf = (kind: string): number => {
  const c = CODE.get(kind);
  if (c === undefined) throw new Error(`no evidence entry type "${kind}"`);
  return c;
};

/** Rows one multi-row INSERT writes at most. */
const INSERT_ROWS = 64;

/** Subtrees of at least 2^STORED_LEVEL leaves are stored; smaller ones are computed from leaves. */
export const STORED_LEVEL = 8;
const BLOCK = 2 ** STORED_LEVEL;

export interface EntryInput {
  kind: EntryType;
  /** The id of the record this entry logs, in its own table. */
  ref: string;
  /** The record's canonical serialisation: the leaf is SHA-256(0x00 || body). */
  body: string;
  /** Keep the body in the log (for records not kept elsewhere in this form). */
  keepBody: boolean;
  at: number;
}

export interface LogEntry {
  idx: number;
  kind: EntryType;
  ref: string;
  at: number;
  body: string | null;
  leaf: Hash;
}

export class EvidenceLog implements SubtreeSource {
  private frontier: Frontier;
  private readonly stmts;
  private readonly db: Db;
  /** Entries staged in the current transaction, written by `flush()` (a few multi-row INSERTs). */
  private pending: unknown[] = [];
  private readonly inserts = new Map<number, Statement<unknown[]>>();
  /** The last complete 256-leaf block read for small subtrees (blocks never change once complete). */
  private block: { index: number; leaves: Hash[] } | undefined;

  constructor(db: Db) {
    this.db = db;
    this.stmts = {
      insert: db.prepare(
        'INSERT INTO log_entries (idx, kind, ref, at, body, leaf) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      insertNode: db.prepare('INSERT INTO log_nodes (level, idx, hash) VALUES (?, ?, ?)'),
      node: db.prepare<[number, number], { hash: Buffer }>(
        'SELECT hash FROM log_nodes WHERE level = ? AND idx = ?',
      ),
      leaves: db.prepare<[number, number], { leaf: Buffer }>(
        'SELECT leaf FROM log_entries WHERE idx >= ? AND idx < ? ORDER BY idx',
      ),
      last: db.prepare<[], { idx: number }>('SELECT idx FROM log_entries ORDER BY idx DESC LIMIT 1'),
      entry: db.prepare<[number], StoredEntry>('SELECT * FROM log_entries WHERE idx = ?'),
      entries: db.prepare<[number, number], StoredEntry>(
        'SELECT * FROM log_entries WHERE idx >= ? AND idx < ? ORDER BY idx',
      ),
    };
    this.frontier = this.load();
  }

  /** Entries in the log. */
  size(): number {
    return this.frontier.size;
  }

  /** The current tree head. */
  root(): Hash {
    return this.frontier.root();
  }

  /**
   * Appends entries (call inside the transaction that writes their records); returns their indexes.
   * Each leaf is SHA-256(0x00 || body).
   */
  append(entries: readonly EntryInput[]): number[] {
    if (entries.length === 0) return [];
    this.resyncIfBehind();
    return entries.map((e) =>
      this.appendLeaf(e.kind, e.ref, e.at, e.keepBody ? e.body : null, leafHash(e.body)),
    );
  }

  /** The index the next entry gets. */
  nextIndex(): number {
    return this.frontier.size;
  }

  /**
   * Stages one entry whose leaf the caller computed from its body (the hot path of readings, which keep
   * the leaf with the record): its index is taken and the tree grows at once, and the row is written by
   * `flush()`, which the caller must run before its transaction commits (the ingest stage's group commit
   * does). A rolled-back transaction must be followed by `resync()`.
   */
  stage(kind: EntryType, ref: string | number, at: number, body: string | null, leaf: Hash): number {
    const idx = this.frontier.size;
    this.pending.push(idx, codeOf(kind), ref, at, body, leaf);
    this.frontier.append(leaf, this.storeNode);
    if (this.pending.length >= INSERT_ROWS * 6 * 8) this.flush();
    return idx;
  }

  /** Writes the staged entries (inside the transaction that staged them). */
  flush(): void {
    const p = this.pending;
    if (p.length === 0) return;
    this.pending = [];
    for (let at = 0; at < p.length; at += INSERT_ROWS * 6) {
      const rows = Math.min(INSERT_ROWS, (p.length - at) / 6);
      let stmt = this.inserts.get(rows);
      if (!stmt) {
        stmt = this.db.prepare(
          `INSERT INTO log_entries (idx, kind, ref, at, body, leaf) VALUES ${Array(rows).fill('(?, ?, ?, ?, ?, ?)').join(', ')}`,
        );
        this.inserts.set(rows, stmt);
      }
      stmt.run(...p.slice(at, at + rows * 6));
    }
  }

  /** Appends one entry at once (outside the hot path); entries staged before it are written first. */
  appendLeaf(kind: EntryType, ref: string | number, at: number, body: string | null, leaf: Hash): number {
    const idx = this.stage(kind, ref, at, body, leaf);
    this.flush();
    return idx;
  }

  private readonly storeNode = (level: number, index: number, hash: Hash): void => {
    if (level >= STORED_LEVEL) this.stmts.insertNode.run(level, index, hash);
  };

  /** Rebuilds the in-memory edge from the store (after a rolled-back transaction). */
  resync(): void {
    this.pending = [];
    this.block = undefined;
    this.frontier = this.load();
  }

  private resyncIfBehind(): void {
    const last = this.stmts.last.get()?.idx ?? -1;
    if (last !== this.frontier.size - 1) this.resync();
  }

  private load(): Frontier {
    const size = (this.stmts.last.get()?.idx ?? -1) + 1;
    return Frontier.of(this, size);
  }

  subtree(level: number, index: number): Hash {
    if (level >= STORED_LEVEL) {
      const row = this.stmts.node.get(level, index);
      if (!row) throw new Error(`the log has no subtree ${level}/${index}: the store is damaged`);
      return row.hash;
    }
    const width = 2 ** level;
    const start = index * width;
    const b = Math.floor(start / BLOCK);
    const leaves = this.blockLeaves(b);
    const from = start - b * BLOCK;
    if (from + width > leaves.length) throw new Error(`the log has no subtree ${level}/${index}`);
    let layer = leaves.slice(from, from + width);
    while (layer.length > 1) {
      const next: Hash[] = [];
      for (let i = 0; i < layer.length; i += 2) next.push(nodeHash(layer[i]!, layer[i + 1]!));
      layer = next;
    }
    return layer[0]!;
  }

  private blockLeaves(b: number): Hash[] {
    if (this.block?.index === b) return this.block.leaves;
    const leaves = this.stmts.leaves.all(b * BLOCK, (b + 1) * BLOCK).map((r) => r.leaf);
    if (leaves.length === BLOCK) this.block = { index: b, leaves };
    return leaves;
  }

  /** The tree head at an earlier size. */
  rootAt(size: number): Hash {
    this.checkSize(size);
    return size === this.frontier.size ? this.frontier.root() : treeRoot(this, size);
  }

  inclusion(index: number, size: number): Hash[] {
    this.checkSize(size);
    return inclusionProof(this, index, size);
  }

  consistency(from: number, to: number): Hash[] {
    this.checkSize(to);
    return consistencyProof(this, from, to);
  }

  range(ranges: LeafRanges, size: number): Hash[] {
    this.checkSize(size);
    return rangeProof(this, ranges, size);
  }

  /** The hashes of `range`, one at a time (a caller may let the event loop go between them). */
  rangeSteps(ranges: LeafRanges, size: number): Generator<Hash> {
    this.checkSize(size);
    return rangeProofSteps(this, ranges, size);
  }

  /** MTH of leaves [lo, hi) (a subtree RFC 9162's recursion reaches). */
  rangeRoot(lo: number, hi: number): Hash {
    return rangeRoot(this, lo, hi);
  }

  entry(idx: number): LogEntry | undefined {
    const e = this.stmts.entry.get(idx);
    return e ? named(e) : undefined;
  }

  /** Entries [from, to) in order, one at a time. */
  *entries(from: number, to: number): Generator<LogEntry> {
    for (const e of this.stmts.entries.iterate(from, to)) yield named(e);
  }

  private checkSize(size: number): void {
    if (!(Number.isInteger(size) && size >= 0 && size <= this.frontier.size))
      throw new RangeError(`the log has ${this.frontier.size} entries, not ${size}`);
  }
}

/** An entry as stored: its type as a code, its ref as stored (an integer for readings). */
interface StoredEntry extends Omit<LogEntry, 'kind' | 'ref'> {
  kind: number;
  ref: string | number;
}

function named(e: StoredEntry): LogEntry {
  return { ...e, kind: ENTRY_TYPES[e.kind] ?? ('unknown' as EntryType), ref: String(e.ref) };
}
