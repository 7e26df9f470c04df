/**
 * Change records as sentences: "Site 'Maple Ridge' storm threshold changed from 0.5 in to 0.75 in by Pat
 * Officer, Nov 30, 2026, 6:53 AM EST". A site's changes are told in the site's zone; a gateway-wide one
 * (an account, a token) in the gateway's zone, and says so. Nested values are compared key by key, with
 * labels for people. The dashboard's Changes page and the compliance report both write them so; what they
 * know of names and zones is theirs (`ChangeNames`).
 */
import type { ChangeResponse } from './admin.ts';
import { practiceChanges } from './api/practiceWords.ts';
import { figureWords } from './looser.ts';
import { formatLong } from './time.ts';
import { keyLabel, labelInSentence, valueText } from './words.ts';

type Change = ChangeResponse;

/** What the sentences need to know of the sites and devices a change names, and of zones. */
export interface ChangeNames {
  /** A site's name, if known. */
  siteName(siteId: string): string | undefined;
  /** A device's name, if known. */
  deviceName(siteId: string, deviceId: string): string | undefined;
  /** The zone a site's changes are told in. */
  siteZone(siteId: string): string;
  /** The gateway's zone, for a change of no site. */
  homeZone: string;
}

/** One difference between the old and the new value, at a path of keys. */
export interface Diff {
  path: string[];
  old: unknown;
  new: unknown;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The differences between two values, key by key through nested objects (lists compare whole). */
export function diffValues(old: unknown, next: unknown, path: string[] = []): Diff[] {
  if (isRecord(old) && isRecord(next)) {
    const keys = [...new Set([...Object.keys(old), ...Object.keys(next)])];
    return keys.flatMap((k) => diffValues(old[k], next[k], [...path, k]));
  }
  if (JSON.stringify(old) === JSON.stringify(next)) return [];
  return [{ path, old, new: next }];
}

const quoted = (name: string) => `'${name}'`;

/** What was changed: "Site 'Maple Ridge'", "Device rg-1 at 'Maple Ridge'", "Account Pat Officer". */
export function subjectOf(c: Change, names: ChangeNames): string {
  const named = (v: unknown) => (isRecord(v) && typeof v.name === 'string' ? v.name : undefined);
  const siteName = c.siteId ? (names.siteName(c.siteId) ?? c.siteId) : '';
  const deviceName = c.deviceId ? names.deviceName(c.siteId ?? '', c.deviceId) : undefined;
  const device = c.deviceId
    ? `device ${deviceName ? `${deviceName} (${c.deviceId})` : c.deviceId}`
    : 'a device';
  switch (c.entity) {
    case 'site':
      return `Site ${quoted(named(c.new) ?? named(c.old) ?? siteName)}`;
    case 'device':
      return `${device[0]?.toUpperCase()}${device.slice(1)} at ${quoted(siteName)}`;
    case 'recipients':
      return `The notification recipients of ${quoted(siteName)}`;
    case 'secret':
      return `The password of ${device} at ${quoted(siteName)}`;
    case 'quarantine':
      return `Readings kept in quarantine for ${device} at ${quoted(siteName)}`;
    case 'user':
      return `The account of ${named(c.new) ?? named(c.old) ?? 'a person'}`;
    case 'token':
      return `The API token ${quoted(named(c.new) ?? named(c.old) ?? 'unnamed')}`;
    default:
      return 'A record';
  }
}

const VERBS: Record<string, string> = {
  seed: 'was set up from the configuration file',
  create: 'was added',
  update: 'was changed',
  calibrate: 'was recalibrated',
  retire: 'was retired',
  rotate: 'was replaced',
  revoke: 'was revoked',
  release: 'were released',
  delete: 'was removed',
  disable: 'was disabled',
  enable: 'was enabled',
};

/** A path of keys for people: ["storm", "thresholdIn"] -> "storm threshold". */
const pathLabel = (d: Diff) =>
  d.path.length
    ? d.path
        .map((k, i) => labelInSentence(keyLabel(k, i === d.path.length - 1 ? (d.new ?? d.old) : {})))
        .join(' ')
    : 'value';

/**
 * One difference in words: "storm threshold from 0.5 in to 0.75 in" (in a sentence of its own: "storm
 * threshold changed from 0.5 in to 0.75 in").
 */
export function diffText(d: Diff, tz: string, alone = false): string {
  const key = d.path[d.path.length - 1] ?? '';
  const was = d.old === undefined ? undefined : valueText(key, d.old, tz);
  const now = d.new === undefined ? undefined : valueText(key, d.new, tz);
  if (was === undefined) return `${pathLabel(d)} set to ${now}`;
  if (now === undefined) return `${pathLabel(d)} removed (it was ${was})`;
  return `${pathLabel(d)}${alone ? ' changed' : ''} from ${was} to ${now}`;
}

/** The zone a change is told in, and whether it is the gateway's (no site). */
function zoneOf(c: Change, names: ChangeNames) {
  return c.siteId ? { tz: names.siteZone(c.siteId), wide: false } : { tz: names.homeZone, wide: true };
}

/** A time in a zone, in the one long format ("Nov 30, 2026, 6:53 AM EST"); empty for none. */
function timeIn(iso: string, tz: string): string {
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? formatLong(ms, tz) : '';
}

/**
 * A figure set looser than the law, or back within it, in words: "Rain that calls for a storm inspection
 * at 'Maple Ridge' set to 0.6 in, looser than the law's 0.5 in, for this reason: "…"".
 */
function overrideText(c: Change, names: ChangeNames): string {
  const o = isRecord(c.new) ? c.new : {};
  const unit = { unit: typeof o.unit === 'string' ? o.unit : '' };
  const figure = typeof o.figure === 'string' ? o.figure : 'A figure of the law';
  const at = quoted((c.siteId ? names.siteName(c.siteId) : undefined) ?? c.siteId ?? '');
  const law = figureWords(unit, o.law);
  if (c.action === 'withdraw')
    return `${figure} at ${at} is back within the law (${figureWords(unit, o.value)}; the law's figure is ${law})`;
  const reason = typeof o.reason === 'string' ? o.reason : '';
  return `${figure} at ${at} set to ${figureWords(unit, o.value)}, looser than the law's ${law}, for this reason: "${reason}"`;
}

/** The change as a sentence, and the differences it lists when it changed more than one value. */
export function changeSentence(c: Change, names: ChangeNames): { text: string; diffs: string[] } {
  const { tz, wide } = zoneOf(c, names);
  const by = c.by === 'configuration' ? '' : ` by ${c.by}`;
  const when = `${timeIn(c.at, tz)}${wide ? ' (a gateway-wide change)' : ''}`;
  const effective =
    Math.abs(Date.parse(c.effectiveAt) - Date.parse(c.at)) >= 60_000
      ? `; in effect from ${timeIn(c.effectiveAt, tz)}`
      : '';
  if (c.entity === 'override')
    return { text: `${overrideText(c, names)}${by}, ${when}${effective}`, diffs: [] };
  const diffs = c.action === 'update' || c.action === 'calibrate' ? diffValues(c.old, c.new) : [];
  // A site's practices are told one by one: added, renamed, of another kind, retired.
  const isPractices = (d: Diff) => d.path.length === 1 && d.path[0] === 'practices';
  const texts = diffs.flatMap((d) =>
    isPractices(d) ? practiceChanges(d.old, d.new, tz) : [diffText(d, tz, diffs.length === 1)],
  );
  const subject = subjectOf(c, names);
  if (texts.length === 1) return { text: `${subject} ${texts[0]}${by}, ${when}${effective}`, diffs: [] };
  const verb = VERBS[c.action] ?? `: ${c.action}`;
  return {
    text: `${subject} ${verb}${by}, ${when}${effective}${texts.length ? ':' : ''}`,
    diffs: texts,
  };
}
