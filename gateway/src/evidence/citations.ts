/**
 * What a report cites, as entries of the evidence log, and the proof that they are in it: every cited
 * entry with its body (as hashed) and leaf, and one multi-range proof (RFC 9162 recursion, see
 * merkle.ts `rangeProof`) of all of them against a signed checkpoint. Contiguous entries cost one range,
 * so a year of a busy gauge's readings stays a few megabytes.
 */
import { rowToReading } from '../store/readings.ts';
import type { Db } from '../store/types.ts';
import type { EvidenceLog } from './log.ts';
import type { LeafRanges } from './merkle.ts';
import { readingBody } from './records.ts';

export interface CitedEntry {
  index: number;
  kind: string;
  body: string;
  leaf: string;
}

export interface Citations {
  entries: CitedEntry[];
  proof: { size: number; ranges: Array<[number, number]>; hashes: string[] };
}

/** The log index of a device's reading at a source time (the reading behind an alert's change). */
export function readingIndexAt(db: Db) {
  const at = db.prepare<[string, string, number], { log_idx: number | null }>(
    'SELECT log_idx FROM readings WHERE site_id = ? AND device_id = ? AND ts = ?',
  );
  return (siteId: string, deviceId: string, ts: number): number | undefined =>
    at.get(siteId, deviceId, ts)?.log_idx ?? undefined;
}

/** Entries cited per slice: each slice reads and serialises them, then the event loop is let go. */
const SLICE = 500;

/**
 * The cited entries, with their bodies, and their proof against the tree of `size` entries, read in
 * slices with the event loop free between them (entries below `size` never change, so nothing moves
 * between slices).
 */
export async function citeSliced(
  db: Db,
  log: EvidenceLog,
  indexes: Iterable<number>,
  size: number,
): Promise<Citations> {
  const sorted = [...new Set(indexes)].filter((i) => i >= 0 && i < size).sort((a, b) => a - b);
  const readingRow = db.prepare<[string], Record<string, unknown>>('SELECT * FROM readings WHERE id = ?');
  const entries: CitedEntry[] = [];
  const ranges: Array<[number, number]> = [];
  for (let k = 0; k < sorted.length; k++) {
    if (k > 0 && k % SLICE === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const idx = sorted[k]!;
    const e = log.entry(idx);
    if (!e) continue;
    let body = e.body;
    if (body === null && e.kind === 'reading') {
      const row = readingRow.get(e.ref);
      if (row) body = readingBody(rowToReading(row));
    }
    if (body === null) continue;
    entries.push({ index: idx, kind: e.kind, body, leaf: e.leaf.toString('base64') });
    const last = ranges[ranges.length - 1];
    if (last && last[1] === idx) last[1] = idx + 1;
    else ranges.push([idx, idx + 1]);
  }
  await new Promise<void>((resolve) => setImmediate(resolve));
  const hashes = ranges.length ? log.range(ranges as LeafRanges, size).map((h) => h.toString('base64')) : [];
  return { entries, proof: { size, ranges, hashes } };
}
