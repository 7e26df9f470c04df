/**
 * How a device connects, in words, on its card of the site page; for one that does not speak the
 * gateway's own JSON, how it is heard (GET
 * …/devices/{deviceId}/link): its sensor profile and the maker's document it follows, its last message
 * as it sent it beside the readings the gateway read from it, and its problems in words with their times.
 * Loaded with the page as a part of its own, for the devices that need it.
 */
import { formatMeasure, measureLabel } from '../../../../shared/src/api/measures.ts';
import { connectionText } from '../../../../shared/src/connectionWords.ts';
import { describeError, get } from '../../api.js';
import { h, replace } from '../../ui/dom.js';
import { formatTime } from '../../ui/format.js';

type Link = import('../../../../shared/src/api/deviceLink.ts').DeviceLink;
type Device = import('../../state.js').Device;

const OUTCOMES: Record<string, string> = {
  stored: 'kept as readings',
  duplicate: 'a repeat of a message already kept',
  rejected: 'refused',
  quarantined: 'held until its clock is set right',
};

/** The message as it came: JSON laid out, anything else as it is. */
function rawText(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    // Not JSON (a frame in hexadecimal, a line of values): shown as it came.
    return raw;
  }
}

function readings(values: NonNullable<Link['last']>['values'], kind: string) {
  const entries = Object.entries(values);
  if (!entries.length) return h('p', { class: 'muted small' }, 'No readings came of it.');
  return h(
    'table',
    { class: 'latest' },
    h(
      'tbody',
      null,
      entries.map(([k, v]) =>
        h(
          'tr',
          { 'data-read': k },
          h('th', { scope: 'row' }, measureLabel(k, kind)),
          h('td', { class: 'num' }, formatMeasure(k, v)),
        ),
      ),
    ),
  );
}

/** The link's block for a device, in the zone of its site. */
export function linkBlock(link: Link, kind: string, tz: string): HTMLElement {
  const last = link.last;
  return h(
    'div',
    { class: 'device-link' },
    link.profile
      ? h(
          'p',
          { class: 'small' },
          'Sensor profile: ',
          h('strong', null, link.profile.label),
          h('br'),
          h('span', { class: 'muted' }, `Follows: ${link.profile.source}`),
        )
      : null,
    last
      ? [
          h(
            'p',
            { class: 'small muted' },
            `Last message ${formatTime(last.at, tz)}: ${OUTCOMES[last.outcome] ?? last.outcome}`,
            last.detail ? ` (${last.detail})` : '',
            '.',
          ),
          h(
            'div',
            { class: 'link-pair' },
            h(
              'section',
              { class: 'link-sent' },
              h('h4', null, 'What it sent'),
              h('pre', { class: 'raw' }, rawText(last.raw)),
            ),
            h(
              'section',
              { class: 'link-read' },
              h('h4', null, 'What the gateway read'),
              readings(last.values, kind),
            ),
          ),
        ]
      : h('p', { class: 'small muted' }, 'Nothing heard from it since the gateway started.'),
    link.errors.length
      ? [
          h('h4', null, 'Problems'),
          h(
            'ul',
            { class: 'link-errors small' },
            link.errors.map((e) =>
              h('li', null, h('time', { datetime: e.at }, formatTime(e.at, tz)), ` ${e.text}`),
            ),
          ),
        ]
      : null,
  );
}

/**
 * Fills a device card's slot with how it connects, in words, and for a device of a native transport its
 * link, or the reason it could not be had.
 */
export async function renderLink(slot: HTMLElement, siteId: string, d: Device, tz: string) {
  const connects = h('p', { class: 'small', 'data-connects': d.transport ?? 'json' }, connectionText(d));
  replace(slot, connects);
  if (d.transport === undefined || d.transport === 'json') return;
  try {
    const link = await get('GET /api/sites/:siteId/devices/:deviceId/link', {
      params: { siteId, deviceId: d.id },
    });
    replace(slot, connects, linkBlock(link, d.kind, tz));
  } catch (e) {
    replace(slot, connects, h('p', { class: 'small muted' }, describeError(e)));
  }
}
