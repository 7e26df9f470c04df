/**
 * A change of a construction site's practices, checked before it is stored: the history must stay
 * readable, so a practice that an inspection's finding names is never removed (it is retired instead:
 * off the checklist and out of "every practice" from then on, its label kept for the findings that name
 * it), a retired practice stays retired from the time on record, and a retirement is not set in the
 * future. Refusals are sentences for the person who made the change.
 */
import type { Practice } from '../../../shared/src/api/findings.ts';
import { timeText } from '../../../shared/src/words.ts';
import type { Db } from '../store/types.ts';

/** Retirements later than this past the clock are refused (a clock a little ahead is not). */
const FUTURE_SLACK_MS = 5 * 60_000;

/** The ids of a site's practices that its inspections' findings name. */
export function namedPractices(db: Db, siteId: string): Set<string> {
  const rows = db
    .prepare<[string], { p: string | null }>(
      `SELECT DISTINCT json_extract(f.value, '$.practice') AS p
         FROM inspections i, json_each(i.findings) f
        WHERE i.site_id = ? AND json_valid(i.findings)`,
    )
    .all(siteId);
  return new Set(rows.flatMap((r) => (r.p === null ? [] : [r.p])));
}

/**
 * What is wrong with changing a site's practices from `cur` to `next`, in a sentence, or undefined. `named`
 * gives the practices its inspections' findings name (read only when a practice is removed).
 */
export function practicesProblem(
  cur: readonly Practice[],
  next: readonly Practice[],
  o: { named: () => Set<string>; now: number; tz: string },
): string | undefined {
  const ids = new Set<string>();
  for (const p of next) {
    if (ids.has(p.id)) return `Two practices have the id "${p.id}": each practice of a site has its own.`;
    ids.add(p.id);
  }
  const removed = cur.filter((p) => !ids.has(p.id));
  if (removed.length > 0) {
    const named = o.named();
    const kept = removed.find((p) => named.has(p.id));
    if (kept)
      return `${kept.label} cannot be removed: inspections on record have findings for it. Retire it instead: it leaves the checklist and is no longer counted in "every practice", and past inspections still name it.`;
  }
  const before = new Map(cur.map((p) => [p.id, p]));
  for (const p of next) {
    const was = before.get(p.id)?.retired;
    if (was !== undefined && p.retired === undefined)
      return `${p.label} was retired from ${timeText(was, o.tz)} and stays retired: add it again as a new practice if it is back on the site.`;
    if (was !== undefined && p.retired !== undefined && Date.parse(p.retired) !== Date.parse(was))
      return `${p.label} was retired from ${timeText(was, o.tz)}: that time stays as recorded.`;
    if (was === undefined && p.retired !== undefined && Date.parse(p.retired) > o.now + FUTURE_SLACK_MS)
      return `${p.label} cannot be retired from ${timeText(p.retired, o.tz)}: that is still to come. Retire it when it is removed from the site.`;
  }
  return undefined;
}
