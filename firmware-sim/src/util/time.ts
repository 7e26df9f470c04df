import { withinDays } from '../../../shared/src/days.ts';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/g;

/** Parses a duration such as `90s`, `15m`, `36h`, `1d12h` or `1h30m` into milliseconds. */
export function parseDuration(text: string): number {
  const s = text.trim();
  if (s === '' || s.replace(PART, '') !== '')
    throw new Error(`not a duration: "${text}" (use e.g. 90s, 15m, 36h, 1d12h)`);
  let ms = 0;
  for (const m of s.matchAll(PART)) ms += Number(m[1]) * UNIT_MS[m[2]!]!;
  return Math.round(ms);
}

export const DURATION_RE = /^(\d+(?:\.\d+)?(ms|s|m|h|d))+$/;
export const OFFSET_RE = /^\+(\d+(?:\.\d+)?(ms|s|m|h|d))+$/;

/** Parses an offset from the scenario start, `+2h` or `+1d2h30m`, into milliseconds. */
export function parseOffset(text: string): number {
  if (!OFFSET_RE.test(text))
    throw new Error(`not an offset from the scenario start: "${text}" (use e.g. +2h)`);
  return parseDuration(text.slice(1));
}

/**
 * Resolves a scenario start: an ISO instant, `now`, or `now-<duration>` (rounded down to the minute),
 * so a run against a live gateway ends near the present and no timestamp lies in the future.
 */
export function resolveStart(text: string, now: number = Date.now()): number {
  const t = text.trim();
  const rel = /^now(?:-(.+))?$/.exec(t);
  if (rel) {
    const back = rel[1] ? parseDuration(rel[1]) : 0;
    return Math.floor((now - back) / 60_000) * 60_000;
  }
  const ms = Date.parse(t);
  if (!Number.isFinite(ms)) throw new Error(`not a start time: "${text}" (ISO 8601, now, or now-36h)`);
  return ms;
}

/** The zone of the gateway's configuration a scenario makes (`gatewayConfig.ts`): its sites' days. */
export const SIM_TIMEZONE = 'America/New_York';

/** `within 5d of +2h`: the last instant of the 5th local day after the day of the offset (a law's days). */
export const WITHIN_RE = /^within (\d+)d of (\+\S+)$/;

/**
 * Resolves an instant given as ISO 8601, as an offset (`+50h`) from `start`, or as the end of "within N
 * days" of an offset (`within 5d of +2h`: the day of the offset not counted, the Nth day whole, in the
 * sites' zone; its last millisecond, as the gateway's due times are).
 */
export function resolveInstant(text: string, start: number, tz = SIM_TIMEZONE): number {
  const within = WITHIN_RE.exec(text);
  if (within) return withinDays(start + parseOffset(within[2]!), Number(within[1]), tz) - 1;
  if (text.startsWith('+')) return start + parseOffset(text);
  const ms = Date.parse(text);
  if (!Number.isFinite(ms)) throw new Error(`not an instant: "${text}" (ISO 8601 or +offset)`);
  return ms;
}

export const iso = (ms: number) => new Date(ms).toISOString();
