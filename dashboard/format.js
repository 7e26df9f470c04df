/** Formatting helpers: times in a site's time zone, relative durations, numbers. Pure functions. */

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

/** @type {Map<string, Intl.DateTimeFormat>} */
const formatters = new Map();

/**
 * @param {string} tz
 * @param {boolean} [withZone]
 */
function formatter(tz, withZone = true) {
  const key = `${tz}|${withZone}`;
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
      hourCycle: 'h23',
      ...(withZone ? { timeZoneName: 'short' } : {}),
    });
    formatters.set(key, f);
  }
  return f;
}

/**
 * A time shown in a zone, e.g. "Mar 4, 2025, 14:05 EST". Empty for a missing time.
 * @param {string | number | null | undefined} t ISO 8601 or epoch ms
 * @param {string} tz IANA zone
 */
export function formatTime(t, tz) {
  if (t === null || t === undefined || t === '') return '';
  const ms = typeof t === 'number' ? t : Date.parse(t);
  if (!Number.isFinite(ms)) return '';
  return formatter(tz).format(ms);
}

/**
 * A duration in words, coarse: "45 s", "12 min", "5 h", "5 h 20 min", "3 d", "3 d 4 h".
 * @param {number} ms
 */
export function formatDuration(ms) {
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
 * @param {string | number} due
 * @param {number} now
 */
export function relativeDue(due, now) {
  const ms = (typeof due === 'number' ? due : Date.parse(due)) - now;
  return ms >= 0 ? `in ${formatDuration(ms)}` : `${formatDuration(ms)} overdue`;
}

/**
 * A past time relative to now: "12 min ago"; "just now" under a minute; "in 5 min" for the future.
 * @param {string | number} t
 * @param {number} now
 */
export function relativePast(t, now) {
  const ms = now - (typeof t === 'number' ? t : Date.parse(t));
  if (Math.abs(ms) < MIN) return 'just now';
  return ms > 0 ? `${formatDuration(ms)} ago` : `in ${formatDuration(ms)}`;
}

/**
 * The offset of a zone from UTC at an instant, in ms (local = utc + offset).
 * @param {number} ms
 * @param {string} tz
 */
export function zoneOffset(ms, tz) {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: tz,
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
    hourCycle: 'h23',
  }).formatToParts(ms);
  /** @param {string} type */
  const get = (type) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const local = Date.UTC(
    get('year'),
    get('month') - 1,
    get('day'),
    get('hour'),
    get('minute'),
    get('second'),
  );
  return local - Math.floor(ms / 1000) * 1000;
}

/**
 * A wall-clock time in a zone ("2025-03-04T14:05", as a datetime-local input gives it) to epoch ms.
 * Returns NaN for an invalid value.
 * @param {string} local
 * @param {string} tz
 */
export function zonedToUtc(local, tz) {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(local);
  if (!m) return Number.NaN;
  const guess = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +(m[6] ?? 0));
  let ms = guess - zoneOffset(guess, tz);
  const again = guess - zoneOffset(ms, tz);
  if (again !== ms) ms = again;
  return ms;
}

/**
 * Epoch ms to a datetime-local value ("2025-03-04T14:05") in a zone.
 * @param {number} ms
 * @param {string} tz
 */
export function utcToZonedInput(ms, tz) {
  const d = new Date(ms + zoneOffset(ms, tz));
  return d.toISOString().slice(0, 16);
}

/**
 * A reading value for display.
 * @param {string} field
 * @param {number | boolean} v
 */
export function formatValue(field, v) {
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
  const u = /** @type {Record<string, string>} */ (units)[field] ?? '';
  const n = Number.isInteger(v) ? String(v) : v.toFixed(2);
  return `${n}${u}`;
}

/**
 * Minutes without a message after which the gateway calls a device silent: its defaults by kind.
 * @param {string} kind
 */
export const silentMinutes = (kind) => (kind === 'rain-gauge' ? 60 : 120);

/**
 * Whether a device should be shown as a gap: never heard from, or silent longer than its kind allows.
 * @param {{kind: string, lastReadingAt: string | null, lastReceivedAt?: string | null}} d
 * @param {number} now
 */
export function isSilent(d, now) {
  const last = Math.max(Date.parse(d.lastReadingAt ?? '') || 0, Date.parse(d.lastReceivedAt ?? '') || 0);
  if (!last) return true;
  const limit = silentMinutes(d.kind) * MIN;
  return now - last >= limit;
}

/**
 * Rain per bucket from a cumulative tip counter (a drop is a reset: the new value is the rain since).
 * @param {Array<{ts: string, value: number}>} points sorted by time
 * @param {number} from epoch ms
 * @param {number} to epoch ms
 * @param {number} bucketMs
 * @returns {Array<{start: number, tips: number}>}
 */
export function tipsPerBucket(points, from, to, bucketMs) {
  const n = Math.max(1, Math.ceil((to - from) / bucketMs));
  const out = Array.from({ length: n }, (_, i) => ({ start: from + i * bucketMs, tips: 0 }));
  /** @type {number | undefined} */
  let prev;
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
