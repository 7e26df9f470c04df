import { readFileSync } from 'node:fs';

/** One row of a HOBO event-logger export: a cumulative count, or a logger event when the count is empty. */
export interface HoboRow {
  /** The logger's local time read as UTC (the export carries no zone); only differences matter for replay. */
  t: number;
  count: number | undefined;
}

/** Parses `MM/DD/YYYY HH:MM:SS,cumulativeCount` lines; skips blank lines; throws on anything else. */
export function parseHobo(text: string): HoboRow[] {
  const rows: HoboRow[] = [];
  const re = /^(\d\d)\/(\d\d)\/(\d{4}) (\d\d):(\d\d):(\d\d),(\d*)\s*$/;
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    const m = re.exec(line);
    if (!m) throw new Error(`line ${i + 1}: not a HOBO row: ${JSON.stringify(line.slice(0, 80))}`);
    const [, mo, d, y, hh, mi, ss, cnt] = m;
    rows.push({
      t: Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(hh), Number(mi), Number(ss)),
      count: cnt === '' ? undefined : Number(cnt),
    });
  });
  return rows;
}

/**
 * Tip times from HOBO rows. An increase of n in the cumulative count is n tips at that row's time;
 * a drop is a logger restart (counting resumes from the new value); logger events carry no tips.
 * The first counted row is the logger's start, not a tip.
 */
export function hoboTipTimes(rows: readonly HoboRow[]): number[] {
  const tips: number[] = [];
  let last: number | undefined;
  for (const r of rows) {
    if (r.count === undefined) continue;
    if (last !== undefined && r.count > last) for (let i = 0; i < r.count - last; i++) tips.push(r.t);
    last = r.count;
  }
  return tips;
}

/** Reads a HOBO export and returns its tips within [from, to), shifted so that `from` (or the first tip) lands on `at`. */
export function replayHobo(
  path: string,
  opts: { at: number; from?: number; to?: number; maxTips?: number },
): number[] {
  const all = hoboTipTimes(parseHobo(readFileSync(path, 'utf8')));
  const inWindow = all.filter(
    (t) => (opts.from === undefined || t >= opts.from) && (opts.to === undefined || t < opts.to),
  );
  const picked = opts.maxTips === undefined ? inWindow : inWindow.slice(0, opts.maxTips);
  if (picked.length === 0) return [];
  const shift = opts.at - (opts.from ?? picked[0]!);
  return picked.map((t) => t + shift);
}
