/**
 * The readings behind a record are kept longer than the general retention: a storm's, an alert's (open
 * or closed), a notice of violation's and a stop-work order's, at least `storage.evidenceRetentionDays`
 * (five years by default, the window of a repeat offence under law 001; 0 keeps them for good). Each
 * owner of such records registers the time windows of its records' readings (`ReadingWindow`: the storms
 * and alerts in `alerts/stores/`, the notices and orders in `enforcement/stores/`), handed to the store
 * by `main.ts`, as the photo citations are; the retention (`readings.ts`, `prune`) removes no reading in
 * one of them until it is older than that.
 */

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

/**
 * The SQL of the retention's keep rule: a `WITH kept AS (…)` of every window, and the condition a
 * reading of `readings` must meet to be removed (outside every window, or older than `@keptBefore`).
 * Without windows, nothing more.
 */
export function keptSql(kept: KeptReadings | undefined): { with: string; cond: string } {
  if (!kept || kept.windows.length === 0) return { with: '', cond: '' };
  const union = kept.windows
    .map((w) => `SELECT site_id, device_id, start, end FROM (${w.sql})`)
    .join(' UNION ALL ');
  return {
    with: `WITH kept(site_id, device_id, start, end) AS MATERIALIZED (${union}) `,
    cond: ` AND (ts < @keptBefore OR NOT EXISTS (SELECT 1 FROM kept w WHERE w.site_id = readings.site_id
      AND (w.device_id IS NULL OR w.device_id = readings.device_id) AND readings.ts BETWEEN w.start AND w.end))`,
  };
}
