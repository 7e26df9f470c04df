/**
 * Logger wall-clock times to epoch milliseconds (UTC). A logger writes local time without a zone;
 * the zone comes from the file (a HOBO `GMT-08:00` header), from the user (a fixed offset or an IANA
 * zone), or defaults to UTC.
 */

import { type LocalParts, tzOffsetMs } from '../rules/util.ts';

/** A logger's wall-clock time: the rules' local date and time, with milliseconds. */
export interface WallTime extends LocalParts {
  ms: number;
}

/** The wall time read as if it were UTC, or undefined when a field is out of range (e.g. 02/30). */
export function wallTimeAsUtc(t: WallTime): number | undefined {
  if (t.month < 1 || t.month > 12 || t.day < 1 || t.day > 31) return undefined;
  if (t.hour > 23 || t.minute > 59 || t.second > 59 || t.ms > 999) return undefined;
  const ms = Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second, t.ms);
  const d = new Date(ms);
  if (d.getUTCFullYear() !== t.year || d.getUTCMonth() !== t.month - 1 || d.getUTCDate() !== t.day)
    return undefined;
  return ms;
}

/** How a file's wall times map to UTC. */
export type Zone = { kind: 'offset'; minutes: number } | { kind: 'iana'; name: string };

export function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `UTC${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

export function describeZone(zone: Zone): string {
  return zone.kind === 'offset' ? formatOffset(zone.minutes) : zone.name;
}

/** Throws when the IANA name is unknown to this Node build. */
export function assertTimeZone(name: string): void {
  new Intl.DateTimeFormat('en-US', { timeZone: name });
}

/**
 * Converts wall-clock times in one zone to UTC. IANA zones follow daylight saving: a wall time in the
 * autumn overlap resolves to its first occurrence, one in the spring-forward gap is read with the offset
 * in force before the gap.
 */
export function makeWallToUtc(zone: Zone): (wallAsUtc: number) => number {
  if (zone.kind === 'offset') {
    const shift = zone.minutes * 60_000;
    return (w) => w - shift;
  }
  const tz = zone.name;
  const cache = new Map<number, number>();
  /** Offset (ms) of the zone at a UTC instant, cached per quarter hour. */
  const offsetAt = (utc: number): number => {
    const key = Math.floor(utc / 900_000);
    let off = cache.get(key);
    if (off === undefined) {
      off = tzOffsetMs(key * 900_000, tz);
      cache.set(key, off);
    }
    return off;
  };
  return (w) => {
    const before = offsetAt(w - 43_200_000);
    const after = offsetAt(w + 43_200_000);
    if (offsetAt(w - before) === before) return w - before;
    if (offsetAt(w - after) === after) return w - after;
    return w - before;
  };
}
