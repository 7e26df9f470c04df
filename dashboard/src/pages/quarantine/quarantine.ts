/**
 * The quarantine (admin): readings the gateway kept but cannot use yet. A device whose clock ran ahead
 * gets a release form (the correction in days, hours and minutes, prefilled to bring its readings back to
 * their arrival time); a device not registered yet is listed as waiting to be added (adding it on its
 * site's devices page releases its messages). The kept and released readings come a page at a time,
 * newest first, with "Show more readings" for the older ones. Sites and devices by their names.
 */
import { describeError, errorDetail, getPageBody, post } from '../../api.js';
import { deviceLabel, siteName, siteZone } from '../../state.js';
import { byId, h, replace } from '../../ui/dom.js';
import { fill, say, table } from '../../ui/form.js';
import { formatTime } from '../../ui/format.js';
import { MoreList } from '../../ui/more.js';

export type WaitingDevice = import('../../../../shared/src/api.ts').QuarantineDevice;
export type Item = import('../../../../shared/src/api.ts').QuarantineItem;
type List = import('../../../../shared/src/api.ts').QuarantineList;

/** Readings a page: the newest first; "Show more readings" reads the next. */
export const READINGS_PAGE = 100;

/** @param s seconds */
function duration(s: number) {
  const a = Math.round(Math.abs(s) / 60);
  const d = Math.floor(a / 1440);
  const hr = Math.floor((a % 1440) / 60);
  const m = a % 60;
  return [d && `${d} d`, hr && `${hr} h`, m && `${m} min`].filter(Boolean).join(' ') || '0 min';
}

function outcomeText(outcome: string | null) {
  if (outcome === null) return 'Waiting';
  if (outcome === 'stored') return 'Released and stored';
  if (outcome === 'duplicate') return 'Released (already stored)';
  if (outcome.startsWith('kept again')) return 'Kept again: the clock is ahead';
  return `Released but refused (${outcome.replace(/^rejected: /, '')})`;
}

/**
 * The release form of a device whose clock ran ahead.
 */
function releaseForm(d: WaitingDevice) {
  // The lead to the minute, as days, hours and minutes.
  const lead = Math.round((d.maxAheadSeconds ?? 0) / 60);
  const num = (name: string, label: string, value: number) =>
    h(
      'div',
      null,
      h('label', { for: `q-${name}-${d.siteId}-${d.deviceId}` }, label),
      h('input', {
        id: `q-${name}-${d.siteId}-${d.deviceId}`,
        name,
        type: 'number',
        step: '1',
        min: '0',
        value: String(value),
      }),
    );
  const msg = h('p', { class: 'msg', role: 'status' });
  const form = h(
    'form',
    { class: 'filters', 'data-release': `${d.siteId}/${d.deviceId}` },
    h('p', { class: 'small' }, 'Set the clock back by:'),
    num('days', 'Days', Math.floor(lead / 1440)),
    num('hours', 'Hours', Math.floor((lead % 1440) / 60)),
    num('minutes', 'Minutes', lead % 60),
    h('button', { type: 'submit' }, `Release ${d.waiting} reading${d.waiting === 1 ? '' : 's'}`),
    msg,
  );
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const v = (n: string) => Number((form.querySelector(`[name=${n}]`) as HTMLInputElement).value || 0);
    const back = v('days') * 86_400 + v('hours') * 3600 + v('minutes') * 60;
    try {
      const r = await post('POST /api/quarantine/release', {
        body: { siteId: d.siteId, deviceId: d.deviceId, offsetSeconds: -back },
      });
      const ahead = r.stillAhead
        ? ` ${r.stillAhead} still ahead of the clock after that correction: they stay.`
        : '';
      await loadQuarantine();
      // Said after the list is drawn again (this form goes with it).
      say(
        byId('quarantine-done'),
        `Released ${r.released} reading${r.released === 1 ? '' : 's'} of ${deviceLabel(d.siteId, d.deviceId)}: ${r.stored} stored, ${r.duplicates} already stored, ${r.rejected} refused.${ahead}`,
        'ok',
      );
    } catch (e) {
      say(msg, describeError(e), 'bad');
    }
  });
  return form;
}

/** The kept and released readings shown, newest first, one row each. */
function readingsTable(items: readonly Item[]) {
  return table(
    ['Arrived', 'Site', 'Device', 'Why', 'Device time', 'Status', 'Released by'],
    items.map((i) => [
      formatTime(i.receivedAt, siteZone(i.siteId)),
      siteName(i.siteId),
      deviceLabel(i.siteId, i.deviceId),
      i.why,
      i.sourceTs ? formatTime(i.sourceTs, siteZone(i.siteId)) : '—',
      outcomeText(i.outcome),
      i.releasedBy
        ? `${i.releasedBy}${i.offsetSeconds ? `, clock ${i.offsetSeconds < 0 ? 'back' : 'forward'} ${duration(i.offsetSeconds)}` : ''}`
        : '—',
    ]),
    (n) => ({ 'data-item': String(items[n]?.id ?? n) }),
  );
}

/**
 * The "Kept and released readings" table with what it shows said above it and "Show more readings"
 * below it, from the list's first page.
 */
function readings(first: List, next: string | undefined) {
  const status = h('p', { id: 'quarantine-items-status', class: 'small', 'aria-live': 'polite' });
  const box = h('div', { id: 'quarantine-items' });
  const draw = () => {
    const n = list.rows.length;
    const words = `${n} reading${n === 1 ? '' : 's'}`;
    status.textContent = list.next
      ? `The newest ${words}, newest first. ${list.older}`
      : n
        ? `${words}, newest first`
        : '';
    status.classList.remove('text-bad');
    status.removeAttribute('title');
    replace(box, readingsTable(list.rows));
  };
  const list = new MoreList<'GET /api/quarantine', Item>({
    route: 'GET /api/quarantine',
    noun: 'readings',
    key: (i) => i.id,
    items: (body) => body.items,
    shown: draw,
    failed: (e) => {
      status.textContent = describeError(e);
      status.title = errorDetail(e);
      status.classList.add('text-bad');
    },
  });
  list.start(first.items, next);
  draw();
  return [status, box, h('p', { class: 'more' }, list.button)];
}

export async function loadQuarantine() {
  await fill(byId('quarantine-list'), async () => {
    const { body: q, next } = await getPageBody('GET /api/quarantine', {
      query: { status: 'all', limit: READINGS_PAGE },
    });
    const clocks = q.devices.filter((d) => d.reason === 'future_timestamp');
    const unregistered = q.devices.filter((d) => d.reason === 'unregistered_device');
    const waiting = q.devices.reduce((n, d) => n + d.waiting, 0);
    byId('quarantine-status').textContent =
      waiting === 0
        ? 'Nothing waits in quarantine.'
        : `${waiting} reading${waiting === 1 ? '' : 's'} wait in quarantine.`;
    return [
      h('h3', null, 'Devices with a clock ahead'),
      clocks.length
        ? clocks.map((d) =>
            h(
              'div',
              { class: 'card', 'data-clock': `${d.siteId}/${d.deviceId}` },
              h(
                'p',
                null,
                `${deviceLabel(d.siteId, d.deviceId)} at ${siteName(d.siteId)}: clock up to ${duration(d.maxAheadSeconds ?? 0)} ahead; ${d.waiting} reading${d.waiting === 1 ? '' : 's'} waiting since ${formatTime(d.firstReceivedAt, siteZone(d.siteId))}. Set the device's clock right, then release them with the correction.`,
              ),
              releaseForm(d),
            ),
          )
        : h('p', { class: 'muted' }, 'None.'),
      h('h3', null, 'Devices waiting to be added'),
      table(
        ['Site', 'Device', 'Messages kept', 'First', 'Last'],
        unregistered.map((d) => [
          siteName(d.siteId),
          d.deviceId,
          String(d.waiting),
          formatTime(d.firstReceivedAt, siteZone(d.siteId)),
          formatTime(d.lastReceivedAt, siteZone(d.siteId)),
        ]),
      ),
      h(
        'p',
        { class: 'small muted' },
        "Add such a device on its site's devices page: its messages are then released.",
      ),
      h('h3', null, 'Kept and released readings'),
      readings(q, next),
    ];
  });
}
