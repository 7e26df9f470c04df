/** Formatting helpers: times in a site's time zone, relative durations, numbers. Pure functions. */
import { formatLocal, formatLong, tzOffsetMs, zonedTime } from '../../../shared/src/time.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

/**
 * A time shown in a zone, e.g. "Mar 4, 2025, 2:05 PM EST", as the rules' evidence and the printed report
 * write it (shared/src/time.ts). Empty for a missing time.
 * @param t ISO 8601 or epoch ms
 * @param tz IANA zone
 */
export function formatTime(t: string | number | null | undefined, tz: string) {
  if (t === null || t === undefined || t === '') return '';
  const ms = typeof t === 'number' ? t : Date.parse(t);
  if (!Number.isFinite(ms)) return '';
  return formatLong(ms, tz);
}

/**
 * A duration in words, coarse: "45 s", "12 min", "5 h", "5 h 20 min", "3 d", "3 d 4 h".
 */
export function formatDuration(ms: number) {
  const a = Math.abs(ms);
  if (a < MIN) return `${Math.max(0, Math.round(a / 1000))} s`;
  if (a < HOUR) return `${Math.floor(a / MIN)} min`;
  if (a < DAY) {
    const h = Math.floor(a / HOUR);
    const m = Math.floor((a - h * HOUR) / MIN);
    return h < 10 && m > 0 ? `${h} h ${m} min` : `${h} h`;
  }
  const d = Math.floor(a / DAY);
  const h = Math.floor((a - d * DAY) / HOUR);
  return d < 3 && h > 0 ? `${d} d ${h} h` : `${d} d`;
}

/**
 * A deadline relative to now: "in 5 h" or "3 h overdue".
 */
export function relativeDue(due: string | number, now: number) {
  const ms = (typeof due === 'number' ? due : Date.parse(due)) - now;
  return ms >= 0 ? `in ${formatDuration(ms)}` : `${formatDuration(ms)} overdue`;
}

/**
 * A past time relative to now: "12 min ago"; "just now" under a minute; "in 5 min" for the future.
 */
export function relativePast(t: string | number, now: number) {
  const ms = now - (typeof t === 'number' ? t : Date.parse(t));
  if (Math.abs(ms) < MIN) return 'just now';
  return ms > 0 ? `${formatDuration(ms)} ago` : `in ${formatDuration(ms)}`;
}

/**
 * A wall-clock time in a zone ("2025-03-04T14:05", as a datetime-local input gives it) to epoch ms.
 * Returns NaN for an invalid value.
 */
export function zonedToUtc(local: string, tz: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(local);
  if (!m) return Number.NaN;
  const [y, mo, d, hh, mi, ss] = m.slice(1).map((v) => Number(v ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return zonedTime(y, mo, d, tz, hh, mi) + ss * 1000;
}

/**
 * Epoch ms to a datetime-local value ("2025-03-04T14:05") in a zone.
 */
export function utcToZonedInput(ms: number, tz: string) {
  const d = new Date(ms + tzOffsetMs(ms, tz));
  return d.toISOString().slice(0, 16);
}

/**
 * A reading value for display.
 */
export function formatValue(field: string, v: number | boolean) {
  if (typeof v === 'boolean') return v ? 'ALARM' : 'normal';
  const units = {
    rainIn: ' in',
    levelIn: ' in',
    sludgeIn: ' in',
    scumIn: ' in',
    sedimentIn: ' in',
    turbidityNtu: ' NTU',
    batteryV: ' V',
    rssi: ' dBm',
    rainTips: ' tips',
  };
  const u = (units as Record<string, string>)[field] ?? '';
  const n = Number.isInteger(v) ? String(v) : v.toFixed(2);
  return `${n}${u}`;
}

/**
 * Minutes without a message after which the gateway calls a device silent: its defaults by kind.
 */
export const silentMinutes = (kind: string) => (kind === 'rain-gauge' ? 60 : 120);

/**
 * Whether a device should be shown as a gap: never heard from, or silent longer than its kind allows.
 */
export function isSilent(
  d: { kind: string; lastReadingAt: string | null; lastReceivedAt?: string | null },
  now: number,
) {
  const last = Math.max(Date.parse(d.lastReadingAt ?? '') || 0, Date.parse(d.lastReceivedAt ?? '') || 0);
  if (!last) return true;
  const limit = silentMinutes(d.kind) * MIN;
  return now - last >= limit;
}

/**
 * Rain per bucket from a cumulative tip counter (a drop is a reset: the new value is the rain since).
 * @param points sorted by time
 * @param from epoch ms
 * @param to epoch ms
 */
export function tipsPerBucket(
  points: Array<{ ts: string; value: number }>,
  from: number,
  to: number,
  bucketMs: number,
): Array<{ start: number; tips: number }> {
  const n = Math.max(1, Math.ceil((to - from) / bucketMs));
  const out = Array.from({ length: n }, (_, i) => ({ start: from + i * bucketMs, tips: 0 }));

  let prev: number | undefined;
  for (const p of points) {
    const t = Date.parse(p.ts);
    if (prev !== undefined) {
      const inc = p.value >= prev ? p.value - prev : p.value;
      const i = Math.floor((t - from) / bucketMs);
      const b = out[Math.min(n - 1, Math.max(0, i))];
      if (b && inc > 0) b.tips += inc;
    }
    prev = p.value;
  }
  return out;
}

const shortDates = new Map<string, Intl.DateTimeFormat>();
/**
 * A day in a zone, short: "Nov 30" (with the year when it is not this year's: "Nov 30, 2025").
 */
export function shortDate(t: string | number, tz: string, now: number = Date.now()) {
  const ms = typeof t === 'number' ? t : Date.parse(t);
  if (!Number.isFinite(ms)) return '';
  const year = (x: number) => new Intl.DateTimeFormat('en-US', { timeZone: tz, year: 'numeric' }).format(x);
  const withYear = year(ms) !== year(now);
  const key = `${tz}|${withYear}`;
  let f = shortDates.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      month: 'short',
      day: 'numeric',
      ...(withYear ? { year: 'numeric' } : {}),
    });
    shortDates.set(key, f);
  }
  return f.format(ms);
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/**
 * A deadline in whole days (hours or minutes under a day): "in 3 days", "2 days overdue", "in 5 hours".
 */
export function dueInWords(due: string | number, now: number) {
  const ms = (typeof due === 'number' ? due : Date.parse(due)) - now;
  const a = Math.abs(ms);
  const span =
    a >= DAY
      ? plural(Math.floor(a / DAY), 'day')
      : a >= HOUR
        ? plural(Math.floor(a / HOUR), 'hour')
        : plural(Math.max(1, Math.floor(a / MIN)), 'minute');
  return ms >= 0 ? `in ${span}` : `${span} overdue`;
}

/**
 * A time as the gateway writes it in its sentences (a rule's message, its evidence, a note): its own
 * label "2026-07-31 00:00 EDT", ISO 8601 "2026-07-31T04:00:00.000Z", or a day "2026-07-31".
 */
const WRITTEN =
  /(?<![\w-])(\d{4})-(\d{2})-(\d{2})(?:( )(\d{2}):(\d{2}) ([A-Z]{2,5}|GMT[+-]\d{1,2}(?::\d{2})?|UTC)|T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z)?(?![\w-])/g;

const dayFormat = new Intl.DateTimeFormat('en-US', {
  timeZone: 'UTC',
  year: 'numeric',
  month: 'short',
  day: 'numeric',
});

/** A day as the gateway writes it out ("July 31, 2026", `formatDay`): its month's name in full. */
const WRITTEN_DAY =
  /\b(January|February|March|April|June|July|August|September|October|November|December) (\d{1,2}), (\d{4})\b/g;

/**
 * The times in a sentence the gateway wrote, in the one format of the page's dialogs and cards
 * (`formatTime`: "Jul 31, 2026, 12:00 AM EDT"; a day alone as its date, "Jul 31, 2026"), so that a dialog never shows
 * two. A label of another zone than `tz` the page cannot read back is left as written.
 */
export function sameFormat(text: string, tz: string): string {
  const days = text.replace(
    WRITTEN_DAY,
    (_, month: string, d: string, y: string) => `${month.slice(0, 3)} ${d}, ${y}`,
  );
  return days.replace(
    WRITTEN,
    (all, y: string, mo: string, d: string, space?: string, hh?: string, mi?: string) => {
      if (all.endsWith('Z')) return formatTime(all, tz);
      if (!space) return dayFormat.format(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
      const wall = zonedToUtc(`${y}-${mo}-${d}T${hh}:${mi}`, tz);
      const asUtc = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(hh), Number(mi));
      // Where the clock goes back an hour, a wall time happens twice: the label's zone name tells which.
      for (const [ms, zone] of [
        [wall, tz],
        [wall - HOUR, tz],
        [wall + HOUR, tz],
        [asUtc, 'UTC'],
      ] as const)
        if (Number.isFinite(ms) && formatLocal(ms, zone) === all) return formatTime(ms, tz);
      return all;
    },
  );
}
