/**
 * Logger wall-clock times to epoch milliseconds (UTC). A logger writes local time without a zone;
 * the zone comes from the file (a HOBO `GMT-08:00` header), from the user (a fixed offset or an IANA
 * zone), or defaults to UTC (chooseZone says which, in a note for the import summary).
 */

import { type LocalParts, tzOffsetMs } from '../rules/util.ts';
import { ImportFormatError, type ResolvedOptions } from './types.ts';

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

/** A time read from a file's text. */
export interface ParsedTime {
  wall: WallTime;
  /** Step of the written time: 60000 without seconds, 1000 with, finer with fractions. */
  resolutionMs: number;
}

/** Milliseconds of a fraction of a second (`5` -> 500), and the step the digits give. */
export function fraction(s: string | undefined): { ms: number; res: number } {
  if (s === undefined) return { ms: 0, res: 1000 };
  const ms = Math.floor(Number(`0.${s}`) * 1000);
  return { ms, res: Math.max(1, 10 ** (3 - Math.min(3, s.length))) };
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?$/;

/** `YYYY-MM-DD HH:MM[:SS[.fff]]` (or with a `T`), without a zone. */
export function parseIsoTime(s: string): ParsedTime | undefined {
  const m = ISO_DATE.exec(s);
  if (!m) return undefined;
  const f = fraction(m[7]);
  return {
    wall: {
      year: Number(m[1]),
      month: Number(m[2]),
      day: Number(m[3]),
      hour: Number(m[4]),
      minute: Number(m[5]),
      second: m[6] === undefined ? 0 : Number(m[6]),
      ms: f.ms,
    },
    resolutionMs: m[6] === undefined ? 60_000 : f.res,
  };
}

export interface ZoneChoice {
  zone: Zone;
  note: string;
}

/** The zone to read a file's times in: the options' offset or IANA zone, else the file's, else UTC. */
export function chooseZone(
  o: Pick<ResolvedOptions, 'utcOffsetMinutes' | 'timeZone'>,
  fromFile?: { minutes: number; label: string },
): ZoneChoice {
  const fileSays = fromFile ? `; the file says "${fromFile.label}"` : '';
  if (o.utcOffsetMinutes !== undefined) {
    const zone: Zone = { kind: 'offset', minutes: o.utcOffsetMinutes };
    return { zone, note: `times read as ${describeZone(zone)} (utcOffsetMinutes option)${fileSays}` };
  }
  if (o.timeZone !== undefined) {
    try {
      assertTimeZone(o.timeZone);
    } catch (err) {
      throw new ImportFormatError(`unknown time zone "${o.timeZone}": ${(err as Error).message}`);
    }
    return {
      zone: { kind: 'iana', name: o.timeZone },
      note: `times read in ${o.timeZone} (timeZone option)${fileSays}`,
    };
  }
  if (fromFile) {
    const zone: Zone = { kind: 'offset', minutes: fromFile.minutes };
    return { zone, note: `times read as ${describeZone(zone)}, from the file's "${fromFile.label}"` };
  }
  return {
    zone: { kind: 'offset', minutes: 0 },
    note: 'the file gives no time zone: times read as UTC (pass utcOffsetMinutes or timeZone)',
  };
}

/**
 * A reader of a file's time texts, written in `zone` in the form `parse` reads: each text to its
 * instant (epoch ms UTC) and resolution, or undefined when it is not a valid time.
 */
export function timeReader(
  zone: Zone,
  parse: (text: string) => ParsedTime | undefined,
): (text: string) => { ts: number; resolutionMs: number } | undefined {
  const toUtc = makeWallToUtc(zone);
  return (text) => {
    const parsed = parse(text);
    const wallUtc = parsed ? wallTimeAsUtc(parsed.wall) : undefined;
    if (parsed === undefined || wallUtc === undefined) return undefined;
    return { ts: toUtc(wallUtc), resolutionMs: parsed.resolutionMs };
  };
}
