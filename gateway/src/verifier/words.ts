/**
 * The words of the report verifier: a problem is a sentence a town clerk reads (times in the site's time
 * zone, as the printed report shows them, amounts in inches) and the place in the report's JSON it is
 * about (`storms[0].inches`), which verify.html shows small beside it and tests check. No Node API.
 */
import { formatLong } from '../../../shared/src/time.ts';

type Json = Record<string, unknown>;

/** One thing in a report that does not match. */
export interface Problem {
  /** What does not match, in plain words. */
  message: string;
  /** Where in the report's JSON: a path such as `storms[0].inches`, `evidence.checkpoint.note` or `key`. */
  field: string;
}

export const problem = (field: string, message: string): Problem => ({ field, message });

/** What the sentences of one report are written with: the site's time zone and name. */
export interface Words {
  tz: string;
  site: string;
  /** The labels of the site's practices by id, when the report lists them ("Silt fence, north boundary"). */
  practices?: Record<string, string>;
}

/** The report's time zone when this system knows it, or UTC (the times then say so). */
export function knownZone(tz: unknown): string {
  if (typeof tz !== 'string') return 'UTC';
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return tz;
  } catch (e) {
    if (e instanceof RangeError) return 'UTC';
    throw e;
  }
}

/** A time as the printed report shows it ("Nov 30, 2026, 6:12 AM EST"), or "none". */
export const when = (ts: unknown, w: Words): string =>
  typeof ts === 'number' && Number.isFinite(ts) ? formatLong(ts, w.tz) : 'none';

/** An amount of rain: "0.61 in". */
export const inches = (v: unknown): string =>
  typeof v === 'number' ? `${Number(v.toFixed(4))} in` : String(v ?? 'none');

/** A value as shown in a sentence: a time, a text (quoted), a yes or no, a number; never JSON. */
export function shown(v: unknown, w: Words, kind: 'time' | 'text' = 'text'): string {
  if (kind === 'time' && v !== undefined && v !== null) return when(v, w);
  return valueWords(v, w);
}

/** "dutiesOverdue" -> "duties overdue". */
export const camelWords = (key: string): string => key.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`);

const HASH = /^[0-9a-f]{64}$/;
/** A member holding a time in milliseconds: `at`, `ts`, `issuedAt`, … */
const TIME_KEY = /^(at|ts)$|At$/;

/** A photo's (or any record's) SHA-256 in a few characters: "photo 3fa94c0b21e7…". */
export const hashWords = (h: string): string => `${h.slice(0, 12)}…`;

/**
 * Any value in words, as a sentence shows it, never as JSON: a text in quotes, a time in the site's zone,
 * a yes or no, a list comma-separated, an object as its members' words ("kind "silt fence"; note none"),
 * a fingerprint (a photo's) by its first characters.
 */
export function valueWords(v: unknown, w: Words, key = ''): string {
  if (v === undefined || v === null) return 'none';
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'number') return TIME_KEY.test(key) && v > 1e11 ? when(v, w) : String(v);
  if (typeof v === 'string')
    return HASH.test(v) ? `the fingerprint ${hashWords(v)}` : `"${v.replace(/\s+/g, ' ').trim()}"`;
  if (Array.isArray(v)) {
    if (v.length === 0) return 'none';
    const items = v.map((x) => valueWords(x, w));
    return v.some((x) => typeof x === 'object' && x !== null)
      ? items.map((i) => `(${i})`).join(', ')
      : items.join(', ');
  }
  if (typeof v === 'object') {
    const parts = Object.entries(v as Json)
      .filter(([, x]) => x !== undefined)
      .map(([k, x]) => `${camelWords(k)} ${valueWords(x, w, k)}`);
    return parts.length ? parts.join('; ') : 'none';
  }
  return String(v);
}

/** A log entry's record in a few words: "a reading of gauge rg-1 at Nov 30, 2026, 6:53 AM EST". */
export function entryWords(body: Json | undefined, w: Words): string {
  if (!body) return 'a record that cannot be read';
  const gauge = body.type === 'storm' || body.deviceKind === 'rain-gauge';
  const device =
    typeof body.deviceId === 'string' ? `${gauge ? 'gauge' : 'device'} ${body.deviceId}` : 'a device';
  switch (body.type) {
    case 'reading':
      return `a reading of ${device} at ${when(body.ts, w)}`;
    case 'storm':
      return `the record of the storm of ${when(body.start, w)} at ${device}`;
    case 'alert-history':
      return `a duty's history entry (${String(body.action)}) of ${when(body.at, w)}`;
    case 'inspection':
      return `the inspection of ${when(body.at, w)} by ${String(body.inspector)}`;
    case 'notice':
      return `the milestone notice (${String(body.milestone)}) filed ${when(body.filedAt, w)} by ${String(body.filedBy)}`;
    case 'extension':
      return `an engineer's extension recorded ${when(body.at, w)}`;
    case 'certification':
      return `the certification by ${String(body.by)} of ${when(body.at, w)}`;
    case 'change':
      return `the change (${String(body.action)}) by ${String(body.by)} of ${when(body.effectiveAt, w)}`;
    case 'violation':
      return `the notice of violation no. ${String(body.siteSeq)} issued ${when(body.issuedAt, w)} by ${String(body.issuedBy)}`;
    case 'violation-event':
      return `a step (${String(body.kind)}) of a notice of violation recorded ${when(body.at, w)} by ${String(body.by)}`;
    case 'stop-work':
      return `the stop-work order no. ${String(body.siteSeq)} issued ${when(body.at, w)} by ${String(body.issuedBy)}`;
    case 'stop-work-event':
      return body.kind === 'served'
        ? `a service of a stop-work order on ${String(body.party)} recorded ${when(body.at, w)} by ${String(body.by)}`
        : `the lifting of a stop-work order recorded ${when(body.at, w)} by ${String(body.by)}`;
    default:
      return `a record of type ${String(body.type)}`;
  }
}

/** "the notice of violation no. 2 of Maple Ridge", by its logged number, or by its id when not cited. */
export const noticeName = (id: string, body: Json | undefined, w: Words): string =>
  typeof body?.siteSeq === 'number'
    ? `the notice of violation no. ${body.siteSeq} of ${w.site}`
    : `the notice of violation ${id} of ${w.site}`;

/** "the stop-work order no. 1 of Maple Ridge", by its logged number, or by its id when not cited. */
export const orderName = (id: string, body: Json | undefined, w: Words): string =>
  typeof body?.siteSeq === 'number'
    ? `the stop-work order no. ${body.siteSeq} of ${w.site}`
    : `the stop-work order ${id} of ${w.site}`;

/** A sentence's first letter in capitals. */
export const capital = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** A duty as a sentence names it: 'the duty "<its message, cut short>"'. */
export function dutyWords(d: { message?: string; alertId: string }): string {
  const m = d.message?.split(' (')[0]?.trim();
  if (!m) return `the duty ${d.alertId}`;
  return `the duty "${m.length > 90 ? `${m.slice(0, 89)}…` : m}"`;
}

/** How a report writes a status, in words. */
const STATUS_WORDS: Record<string, string> = {
  'on-time': 'on time',
  late: 'late',
  missing: 'missed',
  overdue: 'overdue',
  open: 'open, not yet due',
  pending: 'not yet due',
  resolved: 'resolved',
  superseded: 'superseded by the record',
};
export const statusWords = (s: string): string => STATUS_WORDS[s] ?? s;

/**
 * The first of a site's numbered records (milestone notices, notices of violation, stop-work orders: their
 * logged `siteSeq`), in log order, whose number is not its place: one was taken out of the report.
 */
export function numbering(
  entries: readonly { body: Record<string, unknown> }[],
  field: string,
  [what, whats]: [string, string],
  w: Words,
): Problem[] {
  for (const [i, e] of entries.entries()) {
    const n = e.body.siteSeq;
    if (typeof n !== 'number' || n === i + 1) continue;
    const why =
      n > i + 1
        ? `so ${n - i - 1 === 1 ? 'one before it is' : `${n - i - 1} before it are`} missing from the report`
        : 'so they are out of order';
    return [
      problem(
        field,
        `The ${whats} of ${w.site} in the report skip one: ${what} no. ${n} comes in place ${i + 1}, ${why}`,
      ),
    ];
  }
  return [];
}
