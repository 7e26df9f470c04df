/**
 * The readings behind a record are kept longer than the general retention: a storm's, an alert's (open
 * or closed), a notice of violation's and a stop-work order's, at least `storage.evidenceRetentionDays`
 * (five years by default, the window of a repeat offence under law 001; 0 keeps them for good). Each
 * owner of such records registers the time windows of its records' readings (`ReadingWindow`: the storms
 * and alerts in `alerts/stores/`, the notices and orders in `enforcement/stores/`), handed to the store
 * by `main.ts`, as the photo citations are; the retention (`readings.ts`, `prune`) removes no reading in
 * one of them until it is older than that.
 *
 * The windows are read once a pass and merged per device (a site's window counts for each of its
 * devices); what may go is then removed a device's time range at a time, through the readings' index
 * (site, device, time), so a pass costs the ranges it removes, not the readings it keeps times the windows.
 * Readings of a device the catalogue never had (none in practice) are checked against the windows one by
 * one.
 */
import type { Db } from './types.ts';

/** Far in the future: the end of a window still open (an alert not resolved, an order not lifted). */
export const OPEN_END = Number.MAX_SAFE_INTEGER;

/**
 * The windows of one kind of record: a query of rows `site_id`, `device_id` (NULL: every device of the
 * site), `start` and `end` (ms, inclusive) whose readings the records rest on.
 */
export interface ReadingWindow {
  /** What the records are, for the log ("storms"). */
  name: string;
  sql: string;
}

/** What the retention keeps beyond its general age: the windows, and how long their readings are kept. */
export interface KeptReadings {
  windows: readonly ReadingWindow[];
  /** Readings in a window older than this (ms) go all the same; Number.NEGATIVE_INFINITY keeps them for good. */
  before: number;
}

interface WindowRow {
  site_id: string;
  device_id: string | null;
  start: number;
  end: number;
}

const LOWEST = Number.MIN_SAFE_INTEGER;

/**
 * The [from, to) time ranges of a device's readings that may go: all before `keptBefore`, and from then
 * to `before` those in none of its windows.
 */
export function prunableRanges(
  windows: ReadonlyArray<{ start: number; end: number }>,
  before: number,
  keptBefore: number,
): Array<[number, number]> {
  if (keptBefore >= before) return [[LOWEST, before]];
  const out: Array<[number, number]> = [];
  let from = Math.max(keptBefore, LOWEST);
  if (from > LOWEST) out.push([LOWEST, from]);
  const sorted = windows.filter((w) => w.end >= from && w.start < before).sort((a, b) => a.start - b.start);
  for (const w of sorted) {
    if (w.start > from) out.push([from, w.start]);
    from = Math.max(from, w.end + 1);
    if (from >= before) return out;
  }
  out.push([from, before]);
  return out;
}

/**
 * Removes the readings older than `before` (and at most `maxId`) that no window keeps; answers how many
 * and the highest id removed. Runs inside the caller's transaction.
 */
export function pruneKept(
  db: Db,
  before: number,
  maxId: number,
  kept: KeptReadings,
): { readings: number; upToId: number | null } {
  const keptBefore = Number.isFinite(kept.before) ? kept.before : LOWEST;
  const union = kept.windows
    .map((w) => `SELECT site_id, device_id, start, end FROM (${w.sql})`)
    .join(' UNION ALL ');
  const windows = db.prepare<[], WindowRow>(union).all();
  const bySite = new Map<string, WindowRow[]>();
  for (const w of windows) bySite.set(w.site_id, [...(bySite.get(w.site_id) ?? []), w]);
  const range = 'FROM readings WHERE site_id = ? AND device_id = ? AND ts >= ? AND ts < ? AND id <= ?';
  const top = db.prepare<[string, string, number, number, number], { id: number | null }>(
    `SELECT MAX(id) AS id ${range}`,
  );
  const del = db.prepare<[string, string, number, number, number]>(`DELETE ${range}`);
  let readings = 0;
  let upToId: number | null = null;
  const devices = db.prepare<[], { site_id: string; id: string }>('SELECT site_id, id FROM devices').all();
  for (const d of devices) {
    const own = (bySite.get(d.site_id) ?? []).filter((w) => w.device_id === null || w.device_id === d.id);
    for (const [from, to] of prunableRanges(own, before, keptBefore)) {
      const id = top.get(d.site_id, d.id, from, to, maxId)?.id ?? null;
      if (id === null) continue;
      upToId = Math.max(upToId ?? id, id);
      readings += del.run(d.site_id, d.id, from, to, maxId).changes;
    }
  }
  // A device the catalogue never had: its readings one by one against the windows.
  const others = `FROM readings r WHERE r.ts < @before AND r.id <= @maxId
    AND NOT EXISTS (SELECT 1 FROM devices d WHERE d.site_id = r.site_id AND d.id = r.device_id)
    AND (r.ts < @keptBefore OR NOT EXISTS (SELECT 1 FROM (${union}) w WHERE w.site_id = r.site_id
      AND (w.device_id IS NULL OR w.device_id = r.device_id) AND r.ts BETWEEN w.start AND w.end))`;
  const args = { before, maxId, keptBefore };
  const id = (db.prepare(`SELECT MAX(r.id) AS id ${others}`).get(args) as { id: number | null }).id;
  if (id !== null) {
    upToId = Math.max(upToId ?? id, id);
    readings += db.prepare(`DELETE FROM readings WHERE id IN (SELECT r.id ${others})`).run(args).changes;
  }
  return { readings, upToId };
}
