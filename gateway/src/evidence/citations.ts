/**
 * What a report cites, as entries of the evidence log, and the proof that they are in it: every cited
 * entry with its body (as hashed) and leaf, and one multi-range proof (RFC 9162 recursion, see
 * merkle.ts `rangeProof`) of all of them against a signed checkpoint. Contiguous entries cost one range,
 * so a year of a busy gauge's readings stays a few megabytes.
 */

import type { LeafRanges } from '../ledger/merkle.ts';
import { readingBody } from '../ledger/records.ts';
import type { EvidenceLog } from '../store/evidenceLog.ts';
import { rowToReading } from '../store/readings.ts';
import type { Db } from '../store/types.ts';

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

/** How long one slice of work may hold the event loop before letting it go, ms. */
const SLICE_MS = 5;

/** A clock of slices: `due()` says when the slice's time is up (checked every few items, cheaply). */
function slicer() {
  let started = performance.now();
  return async () => {
    if (performance.now() - started < SLICE_MS) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    started = performance.now();
  };
}

/**
 * The cited entries, with their bodies, and their proof against the tree of `size` entries, in slices
 * of about SLICE_MS with the event loop free between them (entries below `size` never change, so
 * nothing moves between slices).
 */
export async function citeSliced(
  db: Db,
  log: EvidenceLog,
  indexes: Iterable<number>,
  size: number,
): Promise<Citations> {
  const slice = slicer();
  const sorted = [...new Set(indexes)].filter((i) => i >= 0 && i < size).sort((a, b) => a - b);
  const readingRow = db.prepare<[string], Record<string, unknown>>('SELECT * FROM readings WHERE id = ?');
  const entries: CitedEntry[] = [];
  const ranges: Array<[number, number]> = [];
  for (const idx of sorted) {
    await slice();
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
  const hashes: string[] = [];
  if (ranges.length)
    for (const h of log.rangeSteps(ranges as LeafRanges, size)) {
      hashes.push(h.toString('base64'));
      await slice();
    }
  return { entries, proof: { size, ranges, hashes } };
}
