/**
 * A site's history on record (`history`: the last routine and annual inspections, the town's letter, the
 * last pump-out, from before the gateway knew the site). Adding or editing a site takes it; each event is
 * a change record of its own (entity `history`, action the event's key, effective at the event's time),
 * so the evidence log and the compliance report carry what the clocks start from. An edit adds to the
 * history: an event given replaces that event, the others stay; a record is never removed.
 */
import { SITE_HISTORY_KEYS, type SiteHistory } from '../../../shared/src/admin.ts';
import { MIN_SOURCE_TS } from '../../../shared/src/telemetry.ts';
import { toIso } from '../../../shared/src/time.ts';
import type { ChangeInput } from './changes.ts';

/** An event may be dated this far ahead of the gateway's clock (a clock a little off), not more. */
const FUTURE_SLACK_MS = 5 * 60_000;

/**
 * The history as the site keeps it: each time in UTC, the events of `patch` over those of `cur`. Refuses
 * (with the event's path) a time in the future, or before 2000-01-01 (a date typed wrong).
 */
export function mergeHistory(
  cur: SiteHistory | undefined,
  patch: SiteHistory | undefined,
  now: number,
): { history: SiteHistory | undefined; problem?: string } {
  if (patch === undefined) return { history: cur };
  const out: SiteHistory = { ...cur };
  for (const key of SITE_HISTORY_KEYS) {
    const v = patch[key];
    if (v === undefined) continue;
    const at = Date.parse(v);
    if (!Number.isFinite(at)) return { history: cur, problem: `history.${key}: not a time` };
    if (at > now + FUTURE_SLACK_MS)
      return { history: cur, problem: `history.${key}: a record of the past cannot be in the future (${v})` };
    if (at < MIN_SOURCE_TS)
      return { history: cur, problem: `history.${key}: ${v} is before 2000-01-01; check the date` };
    out[key] = toIso(at);
  }
  return { history: Object.keys(out).length > 0 ? out : undefined };
}

/** The change records of the events that `next` records anew (or at another time) over `cur`. */
export function historyChanges(
  siteId: string,
  by: string,
  cur: SiteHistory | undefined,
  next: SiteHistory | undefined,
): ChangeInput[] {
  const out: ChangeInput[] = [];
  for (const key of SITE_HISTORY_KEYS) {
    const v = next?.[key];
    if (v === undefined || v === cur?.[key]) continue;
    out.push({
      entity: 'history',
      action: key,
      by,
      siteId,
      ...(cur?.[key] !== undefined ? { old: cur[key] } : {}),
      new: v,
      effectiveAt: Date.parse(v),
    });
  }
  return out;
}
