/**
 * Change records as sentences: "Site 'Maple Ridge' storm threshold changed from 0.5 in to 0.75 in by Pat
 * Officer, Nov 30, 2026, 6:53 AM EST". A site's changes are told in the site's zone; a gateway-wide one
 * (an account, a token) in the gateway's zone, and says so. Nested values are compared key by key, with labels for
 * people; the record as stored is behind a fold, with its evidence log entry.
 */
import type { ChangeResponse } from '../../../../shared/src/admin.ts';
import { practiceChanges } from '../../../../shared/src/api/practiceWords.ts';
import { figureWords } from '../../../../shared/src/looser.ts';
import { addDays, zonedMidnight } from '../../../../shared/src/time.ts';
import { keyLabel, valueText } from '../../../../shared/src/words.ts';
import { getPage } from '../../api.js';

/** The change records the page shows at once, the newest. */
const CHANGES_PAGE = 500;

import { deviceOf, homeZone, siteById, siteZone } from '../../state.js';
import { byId, h } from '../../ui/dom.js';
import { fill, table } from '../../ui/form.js';
import { formatTime } from '../../ui/format.js';
import { fillSiteFilter } from '../../ui/site-filter.js';

export type Change = ChangeResponse;

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
export function subjectOf(c: Change): string {
  const named = (v: unknown) => (isRecord(v) && typeof v.name === 'string' ? v.name : undefined);
  const siteName = c.siteId ? (siteById(c.siteId)?.name ?? c.siteId) : '';
  const device = c.deviceId
    ? `device ${deviceOf(c.siteId ?? '', c.deviceId)?.name ? `${deviceOf(c.siteId ?? '', c.deviceId)?.name} (${c.deviceId})` : c.deviceId}`
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
        .map((k, i) => keyLabel(k, i === d.path.length - 1 ? (d.new ?? d.old) : {}))
        .join(' ')
        .toLowerCase()
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
function zoneOf(c: Change) {
  return c.siteId ? { tz: siteZone(c.siteId), wide: false } : { tz: homeZone(), wide: true };
}

/**
 * A figure set looser than the law, or back within it, in words: "Rain that calls for a storm inspection
 * at 'Maple Ridge' set to 0.6 in, looser than the law's 0.5 in, for this reason: "…"".
 */
function overrideText(c: Change): string {
  const o = isRecord(c.new) ? c.new : {};
  const unit = { unit: typeof o.unit === 'string' ? o.unit : '' };
  const figure = typeof o.figure === 'string' ? o.figure : 'A figure of the law';
  const at = quoted(siteById(c.siteId ?? '')?.name ?? c.siteId ?? '');
  const law = figureWords(unit, o.law);
  if (c.action === 'withdraw')
    return `${figure} at ${at} is back within the law (${figureWords(unit, o.value)}; the law's figure is ${law})`;
  const reason = typeof o.reason === 'string' ? o.reason : '';
  return `${figure} at ${at} set to ${figureWords(unit, o.value)}, looser than the law's ${law}, for this reason: "${reason}"`;
}

/** The change as a sentence, and the differences it lists when it changed more than one value. */
export function changeSentence(c: Change): { text: string; diffs: string[] } {
  const { tz, wide } = zoneOf(c);
  const by = c.by === 'configuration' ? '' : ` by ${c.by}`;
  const when = `${formatTime(c.at, tz)}${wide ? ' (a gateway-wide change)' : ''}`;
  const effective =
    Math.abs(Date.parse(c.effectiveAt) - Date.parse(c.at)) >= 60_000
      ? `; in effect from ${formatTime(c.effectiveAt, tz)}`
      : '';
  if (c.entity === 'override') return { text: `${overrideText(c)}${by}, ${when}${effective}`, diffs: [] };
  const diffs = c.action === 'update' || c.action === 'calibrate' ? diffValues(c.old, c.new) : [];
  // A site's practices are told one by one: added, renamed, of another kind, retired.
  const isPractices = (d: Diff) => d.path.length === 1 && d.path[0] === 'practices';
  const texts = diffs.flatMap((d) =>
    isPractices(d) ? practiceChanges(d.old, d.new, tz) : [diffText(d, tz, diffs.length === 1)],
  );
  const subject = subjectOf(c);
  if (texts.length === 1) return { text: `${subject} ${texts[0]}${by}, ${when}${effective}`, diffs: [] };
  const verb = VERBS[c.action] ?? `: ${c.action}`;
  return {
    text: `${subject} ${verb}${by}, ${when}${effective}${texts.length ? ':' : ''}`,
    diffs: texts,
  };
}

/** The record as stored, folded away. */
function stored(c: Change) {
  const raw = JSON.stringify({ old: c.old ?? null, new: c.new ?? null }, null, 2);
  return h(
    'details',
    { class: 'recorded' },
    h('summary', { class: 'small' }, 'The record as stored'),
    h('pre', { class: 'small wrap' }, raw),
  );
}

export function initChangeFilters() {
  const sel = byId('c-site') as HTMLSelectElement;
  fillSiteFilter(sel);
  const zoneLabel = () => {
    const tz = sel.value ? siteZone(sel.value) : homeZone();
    byId('c-from-label').textContent = `From (day, ${tz})`;
    byId('c-to-label').textContent = `To (day, ${tz})`;
  };
  if (!sel.dataset.bound) {
    sel.dataset.bound = '1';
    sel.addEventListener('change', zoneLabel);
  }
  zoneLabel();
}

/** A day (YYYY-MM-DD) in a zone: its first instant, or its last. */
function dayBound(day: string, tz: string, end: boolean) {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (!end) return new Date(zonedMidnight(y, mo, d, tz)).toISOString();
  const next = addDays(y, mo, d, 1);
  return new Date(zonedMidnight(next.year, next.month, next.day, tz) - 1).toISOString();
}

export async function loadChanges() {
  const v = (id: string) => (byId(id) as HTMLInputElement).value;
  const siteId = v('c-site') || undefined;
  const tz = siteId ? siteZone(siteId) : homeZone();
  await fill(byId('changes-list'), async () => {
    const page = await getPage('GET /api/changes', {
      query: {
        siteId,
        from: dayBound(v('c-from'), tz, false),
        to: dayBound(v('c-to'), tz, true),
        limit: CHANGES_PAGE,
      },
    });
    const rows = page.items;
    // Newest first, in the order of the evidence log.
    rows.sort((a, b) => b.logIndex - a.logIndex);
    const n = `${rows.length} change record${rows.length === 1 ? '' : 's'}`;
    byId('changes-status').textContent = page.next
      ? `The newest ${n}; older ones are not shown: choose dates to see them.`
      : `${n}, newest first`;
    return table(
      ['Change', 'Log entry'],
      rows.map((c) => {
        const { text, diffs } = changeSentence(c);
        return [
          [
            h('p', { class: 'change-text' }, text),
            diffs.length
              ? h(
                  'ul',
                  { class: 'change-diffs' },
                  diffs.map((d) => h('li', null, d)),
                )
              : null,
            stored(c),
          ],
          h('span', { title: `leaf hash ${c.leafHash}` }, `#${c.logIndex}`),
        ];
      }),
      (i) => ({ 'data-change': String(rows[i]?.id ?? i) }),
    );
  });
}
