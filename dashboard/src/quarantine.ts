/**
 * The quarantine (admin): readings the gateway kept but cannot use yet. A device whose clock ran ahead
 * gets a release form (the correction in days, hours and minutes, prefilled to bring its readings back to
 * their arrival time); a device not registered yet is listed as waiting to be added (adding it on its
 * site's devices page releases its messages).
 */
import { describeError, get, post } from './api.js';
import { byId, h } from './dom.js';
import { fill, say, table } from './form.js';
import { formatTime } from './format.js';
import { siteZone } from './state.js';

export type WaitingDevice = import('../../shared/src/api.ts').QuarantineDevice;
export type Item = import('../../shared/src/api.ts').QuarantineItem;

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
      const r = await post('/api/quarantine/release', {
        siteId: d.siteId,
        deviceId: d.deviceId,
        offsetSeconds: -back,
      });
      const ahead = r.stillAhead
        ? ` ${r.stillAhead} still ahead of the clock after that correction: they stay.`
        : '';
      await loadQuarantine();
      // Said after the list is drawn again (this form goes with it).
      say(
        byId('quarantine-done'),
        `Released ${r.released} reading${r.released === 1 ? '' : 's'} of ${d.deviceId}: ${r.stored} stored, ${r.duplicates} already stored, ${r.rejected} refused.${ahead}`,
        'ok',
      );
    } catch (e) {
      say(msg, describeError(e), 'bad');
    }
  });
  return form;
}

export async function loadQuarantine() {
  await fill(byId('quarantine-list'), async () => {
    const q: { items: Item[]; devices: WaitingDevice[] } = await get('/api/quarantine', { status: 'all' });
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
                `${d.deviceId} at ${d.siteId}: clock up to ${duration(d.maxAheadSeconds ?? 0)} ahead; ${d.waiting} reading${d.waiting === 1 ? '' : 's'} waiting since ${formatTime(d.firstReceivedAt, siteZone(d.siteId))}. Set the device's clock right, then release them with the correction.`,
              ),
              releaseForm(d),
            ),
          )
        : h('p', { class: 'muted' }, 'None.'),
      h('h3', null, 'Devices waiting to be added'),
      table(
        ['Site', 'Device', 'Messages kept', 'First', 'Last'],
        unregistered.map((d) => [
          d.siteId,
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
      table(
        ['Arrived', 'Device', 'Why', 'Device time', 'Status', 'Released by'],
        q.items.map((i) => [
          formatTime(i.receivedAt, siteZone(i.siteId)),
          `${i.siteId}/${i.deviceId}`,
          i.why,
          i.sourceTs ? formatTime(i.sourceTs, siteZone(i.siteId)) : '—',
          outcomeText(i.outcome),
          i.releasedBy
            ? `${i.releasedBy}${i.offsetSeconds ? `, clock ${i.offsetSeconds < 0 ? 'back' : 'forward'} ${duration(i.offsetSeconds)}` : ''}`
            : '—',
        ]),
        (n) => ({ 'data-item': String(q.items[n]?.id ?? n) }),
      ),
    ];
  });
}
