/**
 * Small pure helpers shared by the rule evaluators: time units, time-zone arithmetic (Intl only, no
 * clock reads), device lookup and message formatting.
 */
import type { SiteHistory } from '../../../shared/src/admin.ts';
import type { DutyMeasure } from '../../../shared/src/rules.ts';
import type { Reading } from '../../../shared/src/telemetry.ts';
import type { DeviceFacts } from './context.ts';
import type { RuleInput } from './types.ts';

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** ISO 8601 UTC, for evidence. */
export function iso(ts: number): string {
  return new Date(ts).toISOString();
}

export function deviceOf<D extends { id: string }>(
  site: { devices: readonly D[] },
  deviceId: string | undefined,
): D | undefined {
  if (deviceId === undefined) return undefined;
  return site.devices.find((d) => d.id === deviceId);
}

export function deviceLabel(site: { devices: readonly DeviceFacts[] }, deviceId: string): string {
  const d = deviceOf(site, deviceId);
  return d?.name ? `${d.name} (${deviceId})` : deviceId;
}

/** The reading carried by an input, if it is one from this site (and this device, when given). */
export function readingFor(input: RuleInput, siteId: string, deviceId?: string): Reading | undefined {
  if (input.type !== 'reading') return undefined;
  const r = input.reading;
  if (r.siteId !== siteId) return undefined;
  if (deviceId !== undefined && r.deviceId !== deviceId) return undefined;
  return r;
}

/** Deep copy of a JSON state, so an evaluator never mutates the state it was given. */
export function cloneState<S>(s: S): S {
  return structuredClone(s);
}

/** Rounds to 6 decimals (inches derived from tips, fractions for evidence). */
export function round6(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

// ---------- time zones (the one implementation is the contract's, shared with notify and reports) ----------

export {
  addDays,
  formatLocal,
  type LocalParts,
  localParts,
  tzOffsetMs,
  zonedMidnight,
  zonedTime,
} from '../../../shared/src/time.ts';

/** "2 h 5 min", "3 d 4 h": durations for messages. */
export function formatDuration(ms: number): string {
  const m = Math.round(ms / MINUTE);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`;
}

/** Inserts `item` into `arr` (sorted ascending by `key`) keeping it sorted; returns the index. */
export function insertSorted<T>(arr: T[], item: T, key: (t: T) => number): number {
  const k = key(item);
  let lo = 0;
  let hi = arr.length;
  // Fast path: in-order data appends.
  if (hi === 0 || key(arr[hi - 1]!) <= k) {
    arr.push(item);
    return hi;
  }
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (key(arr[mid]!) <= k) lo = mid + 1;
    else hi = mid;
  }
  arr.splice(lo, 0, item);
  return lo;
}

/** Index of the first element whose key is >= k (arr sorted ascending). */
export function lowerBound<T>(arr: readonly T[], k: number, key: (t: T) => number): number {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (key(arr[mid]!) < k) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The inspection kinds that are an erosion and sediment control inspection at a construction site:
 * every kind of the engine's (routine, storm, annual, cleanout, other) but the septic engineer's
 * 'annual' report and a 'cleanout' record.
 */
export const EROSION_INSPECTIONS: readonly string[] = ['routine', 'storm', 'other'];

/** Whether an inspection of this kind is an erosion and sediment control inspection. */
export function isErosionInspection(kind: string): boolean {
  return EROSION_INSPECTIONS.includes(kind);
}

/** An evidence record read for its words: a key's value when it has the type asked for. */
export function evidenceReader(ev: Readonly<Record<string, unknown>>) {
  return {
    str: (k: string): string | undefined => (typeof ev[k] === 'string' ? (ev[k] as string) : undefined),
    num: (k: string): number | undefined => (typeof ev[k] === 'number' ? (ev[k] as number) : undefined),
    bool: (k: string): boolean | undefined => (typeof ev[k] === 'boolean' ? (ev[k] as boolean) : undefined),
  };
}

/**
 * The time of an event of a site's history on record (its `history`: the last inspections and pump-out
 * before the gateway), or undefined. A rule takes it as it takes a logged record of the same event.
 */
export function onRecord(
  site: { history?: SiteHistory | undefined },
  key: keyof SiteHistory,
): number | undefined {
  const v = site.history?.[key];
  if (v === undefined) return undefined;
  const t = Date.parse(v);
  return Number.isFinite(t) ? t : undefined;
}

/** The id an event of the history goes by in a rule's state and evidence: `history:{key}:{time}`. */
export function recordId(key: keyof SiteHistory, at: number): string {
  return `history:${key}:${iso(at)}`;
}

/** Who an event of the history is by, as the rules' messages and evidence name it. */
export const ON_RECORD = "the site's history on record";

/**
 * A due time from a deadline of `shared/src/days.ts` (its first late instant): the last instant on time,
 * as the engine compares a resolution with a due time (`resolved at <= due`) and shows it (23:59).
 */
export function dueBefore(deadline: number): number {
  return deadline - 1;
}

/** The time of an inspection that meets a duty measured by `measure` (`RuleDuty.measure`). */
export function measuredAt(insp: { at: number; receivedAt?: number }, measure: DutyMeasure = 'work'): number {
  return measure === 'submittal' ? (insp.receivedAt ?? insp.at) : insp.at;
}
