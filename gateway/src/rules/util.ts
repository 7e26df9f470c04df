/**
 * Small pure helpers shared by the rule evaluators: time units, time-zone arithmetic (Intl only, no
 * clock reads), device lookup and message formatting.
 */
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

// ---------- time zones ----------

const fmtCache = new Map<string, Intl.DateTimeFormat>();
function partsFormatter(tz: string): Intl.DateTimeFormat {
  let f = fmtCache.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    fmtCache.set(tz, f);
  }
  return f;
}

export interface LocalParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** The wall-clock date and time of `ts` in time zone `tz`. */
export function localParts(ts: number, tz: string): LocalParts {
  const out: Record<string, number> = {};
  for (const p of partsFormatter(tz).formatToParts(new Date(ts))) {
    if (p.type !== 'literal') out[p.type] = Number(p.value);
  }
  return {
    year: out.year!,
    month: out.month!,
    day: out.day!,
    hour: out.hour! % 24,
    minute: out.minute!,
    second: out.second!,
  };
}

/** Offset of `tz` from UTC at instant `ts`, in ms (New York in winter: -5 h). */
export function tzOffsetMs(ts: number, tz: string): number {
  const p = localParts(ts, tz);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return asUtc - (ts - (((ts % 1000) + 1000) % 1000));
}

/** The UTC instant of local wall-clock time y-m-d h:mi in `tz` (month 1-12). Gaps resolve forward. */
export function zonedTime(
  year: number,
  month: number,
  day: number,
  tz: string,
  hour = 0,
  minute = 0,
): number {
  const wall = Date.UTC(year, month - 1, day, hour, minute);
  let guess = wall - tzOffsetMs(wall, tz);
  // A second pass settles instants near a DST change.
  const off2 = tzOffsetMs(guess, tz);
  guess = wall - off2;
  return guess;
}

/** Local midnight at the start of date y-m-d in `tz`. */
export function zonedMidnight(year: number, month: number, day: number, tz: string): number {
  return zonedTime(year, month, day, tz, 0, 0);
}

/** Calendar arithmetic on a date (no time zone involved). */
export function addDays(
  year: number,
  month: number,
  day: number,
  days: number,
): { year: number; month: number; day: number } {
  const d = new Date(Date.UTC(year, month - 1, day + days));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

const labelCache = new Map<string, Intl.DateTimeFormat>();
/**
 * Labels of recent minutes (a message is formatted again on every reading of a long storm): the label
 * names the minute, and since 2000 every zone's offset from UTC is a whole number of minutes.
 */
const formatted = new Map<string, string>();
const FORMATTED_MAX = 256;
/** Zone names by zone, year and offset (`zoneName`). */
const zoneNames = new Map<string, string>();
const Y2000 = Date.UTC(2000, 0, 1);

/** "2026-07-31 00:00 EDT": local time for messages. */
export function formatLocal(ts: number, tz: string): string {
  if (ts < Y2000) return label(ts, tz, tzOffsetMs(ts, tz));
  const key = `${tz}|${Math.floor(ts / MINUTE)}`;
  const hit = formatted.get(key);
  if (hit !== undefined) return hit;
  const text = label(ts, tz, offsetAt(ts, tz));
  formatted.set(key, text);
  if (formatted.size > FORMATTED_MAX) formatted.delete(formatted.keys().next().value!);
  return text;
}

/** The label of `ts` in `tz`, whose offset from UTC then is `offset`. */
function label(ts: number, tz: string, offset: number): string {
  const d = new Date(Math.floor(ts / 1000) * 1000 + offset);
  const pad = (n: number) => String(n).padStart(2, '0');
  const year = d.getUTCFullYear();
  return `${year}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())} ${zoneName(ts, tz, year, offset)}`;
}

/** Offsets by zone and quarter hour (null: the offset changes within it). */
const slotOffsets = new Map<string, number | null>();
const SLOT = 15 * MINUTE;

/**
 * The zone's offset from UTC at `ts` (since 2000): the same through a quarter hour unless a change falls
 * in it, so it is asked of Intl at the quarter's first and last second, once per zone and quarter, and
 * at `ts` itself only in a quarter that holds a change.
 */
function offsetAt(ts: number, tz: string): number {
  const slot = Math.floor(ts / SLOT);
  const key = `${tz}|${slot}`;
  let o = slotOffsets.get(key);
  if (o === undefined) {
    const first = tzOffsetMs(slot * SLOT, tz);
    o = first === tzOffsetMs(slot * SLOT + SLOT - 1000, tz) ? first : null;
    slotOffsets.set(key, o);
    if (slotOffsets.size > FORMATTED_MAX) slotOffsets.delete(slotOffsets.keys().next().value!);
  }
  return o ?? tzOffsetMs(ts, tz);
}

/**
 * The zone's short name ("EDT") at `ts`, in `year` (local) at `offset`. Within a year a zone's name
 * follows its offset from UTC, so it is looked up once per zone, year and offset.
 */
function zoneName(ts: number, tz: string, year: number, offset: number): string {
  const key = `${tz}|${year}|${offset}`;
  const hit = zoneNames.get(key);
  if (hit !== undefined) return hit;
  let f = labelCache.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'short' });
    labelCache.set(tz, f);
  }
  const name = f.formatToParts(new Date(ts)).find((x) => x.type === 'timeZoneName')?.value ?? tz;
  zoneNames.set(key, name);
  if (zoneNames.size > FORMATTED_MAX) zoneNames.delete(zoneNames.keys().next().value!);
  return name;
}

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
