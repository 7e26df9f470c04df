/**
 * Local time, the one implementation: wall-clock parts and offsets of a time zone (Intl only, no clock
 * reads), local midnights, and the labels messages, notifications and reports show ("2026-07-31 00:00
 * EDT"). The rules, notifications and reports all format with it, so a time reads the same everywhere.
 */

const MINUTE = 60_000;

/** Intl formatters are costly to build: one per zone and form, kept. */
const formatters = new Map<string, Intl.DateTimeFormat>();
function zoneFormatter(
  form: string,
  tz: string,
  options: Omit<Intl.DateTimeFormatOptions, 'timeZone'>,
): Intl.DateTimeFormat {
  const key = `${form}|${tz}`;
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, ...options });
    formatters.set(key, f);
  }
  return f;
}

const PARTS: Intl.DateTimeFormatOptions = {
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
};
const partsFormatter = (tz: string) => zoneFormatter('parts', tz, PARTS);

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
  const f = zoneFormatter('zone', tz, { timeZoneName: 'short' });
  const name = f.formatToParts(new Date(ts)).find((x) => x.type === 'timeZoneName')?.value ?? tz;
  zoneNames.set(key, name);
  if (zoneNames.size > FORMATTED_MAX) zoneNames.delete(zoneNames.keys().next().value!);
  return name;
}

/** "2026-07-31 04:00 UTC": the UTC form of a label. */
export function formatUtc(ts: number): string {
  return formatLocal(ts, 'UTC');
}

const LONG: Intl.DateTimeFormatOptions = {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
  timeZoneName: 'short',
};
/** "Jul 31, 2026, 12:00 AM EDT": a time as a printed report shows it. */
export function formatLong(ts: number, tz: string): string {
  const f = zoneFormatter('long', tz, LONG);
  return f.format(new Date(ts));
}

/** "9:00 AM": the time of day in `tz`. */
export function formatClock(ts: number, tz: string): string {
  return zoneFormatter('clock', tz, { hour: 'numeric', minute: '2-digit' }).format(new Date(ts));
}

/** "2026-07-31": the date of `ts` in `tz`. */
export function localDay(ts: number, tz: string): string {
  const p = localParts(ts, tz);
  return `${p.year}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
}

const dayFormat = new Intl.DateTimeFormat('en-US', {
  timeZone: 'UTC',
  year: 'numeric',
  month: 'long',
  day: 'numeric',
});
/** "July 31, 2026": a calendar day (YYYY-MM-DD) written out. */
export function formatDay(day: string): string {
  return dayFormat.format(new Date(`${day}T00:00:00Z`));
}

/** ISO 8601 UTC, as every time leaves the gateway. */
export const toIso = (ms: number): string => new Date(ms).toISOString();
