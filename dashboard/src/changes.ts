/** Change records: who changed which site, device or account, when, from what to what, effective when. */
import { get } from './api.js';
import { byId, h } from './dom.js';
import { fill, table } from './form.js';
import { formatTime } from './format.js';
import { listOf } from './people.js';
import { fillSiteFilter, siteZone } from './state.js';

export type Change = Record<string, any>;

/**
 * The first member of `c` present under one of `keys`.
 */
const pick = (c: Change, ...keys: string[]) =>
  keys.map((k) => c[k]).find((v) => v !== undefined && v !== null);

/** @param v a value, folded away when long */
function compact(v: unknown) {
  if (v === undefined || v === null) return h('span', { class: 'muted' }, '—');
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  const code = h('code', { class: 'small wrap' }, text);
  return text.length <= 80
    ? code
    : h('details', null, h('summary', { class: 'small' }, `${text.slice(0, 60)}…`), code);
}

function target(c: Change) {
  const what = pick(c, 'entity', 'kind', 'type', 'what') ?? 'change';
  const ids = [pick(c, 'siteId'), pick(c, 'deviceId'), pick(c, 'userId', 'email')].filter(Boolean).join('/');
  const action = pick(c, 'action', 'op');
  return `${what}${action ? ` ${action}` : ''}${ids ? ` ${ids}` : ''}`;
}

export function initChangeFilters() {
  fillSiteFilter(byId('c-site') as HTMLSelectElement);
}

export async function loadChanges() {
  const v = (id: string) => (byId(id) as HTMLInputElement).value;
  const siteId = v('c-site') || undefined;
  const day = (s: string, end: boolean) =>
    s ? new Date(`${s}T${end ? '23:59:59.999' : '00:00:00'}Z`).toISOString() : undefined;
  await fill(byId('changes-list'), async () => {
    const rows: Change[] = listOf(
      await get('/api/changes', { siteId, from: day(v('c-from'), false), to: day(v('c-to'), true) }),
      'changes',
    );
    // Newest first, in the order of the evidence log.
    rows.sort((a, b) => Number(pick(b, 'logIndex', 'id') ?? 0) - Number(pick(a, 'logIndex', 'id') ?? 0));
    byId('changes-status').textContent = `${rows.length} change record${rows.length === 1 ? '' : 's'}`;
    return table(
      ['When', 'Who', 'What', 'Old', 'New', 'Effective', 'Log entry'],
      rows.map((c) => {
        const tz = c.siteId ? siteZone(c.siteId) : 'UTC';
        const at = pick(c, 'at', 'changedAt', 'recordedAt');
        const eff = pick(c, 'effectiveAt', 'effectiveFrom');
        const index = pick(c, 'logIndex', 'index', 'entryIndex');
        const leaf = pick(c, 'leafHash', 'leaf');
        return [
          at ? h('time', { datetime: at }, formatTime(at, tz)) : '—',
          String(pick(c, 'actor', 'by', 'who') ?? '—'),
          target(c),
          compact(pick(c, 'old', 'oldValue', 'before')),
          compact(pick(c, 'new', 'newValue', 'after')),
          eff ? h('time', { datetime: eff }, formatTime(eff, tz)) : '—',
          index !== undefined
            ? h('span', { title: leaf ? `leaf hash ${leaf}` : '' }, `#${index}`)
            : h('span', { class: 'muted' }, '—'),
        ];
      }),
      (i) => ({ 'data-change': String(pick(rows[i] ?? {}, 'id', 'logIndex') ?? i) }),
    );
  });
}
