/**
 * The alert dialog: the rule's message, the deadline, the evidence in labelled sentences, the history as
 * sentences, a link to the alert (#/alerts/<id>) to copy, and the actions the rule allows. Every time in
 * it in one format, the gateway's sentences' included (`sameFormat`), in the site's zone.
 */

import { describeError, errorDetail, get } from '../api.js';
import {
  changed,
  deviceOf,
  isActiveAlarm,
  isOverdue,
  ruleLabel,
  siteById,
  siteZone,
  state,
  upsertAlert,
} from '../state.js';
import { actionsSection, clearMessages } from './alert-actions.js';
import { copyText } from './dialogs.js';
import { badge, byId, h, replace, replaceKeeping } from './dom.js';
import { evidenceLines, factList, recordedValues } from './evidence.js';
import { formatTime, relativeDue, sameFormat } from './format.js';
import { historyList } from './history.js';
import { causeLink, resolvedSentence } from './resolution.js';

export type Alert = import('../state.js').Alert;

/**
 * After the resolution's time: ", by the storm inspection by …" (its cause); a resolution recorded before
 * causes were kept reads as it did (", from the readings", " by Pat").
 */
function resolvedPhrase(r: NonNullable<Alert['resolution']>, tz: string): string {
  if (!r.cause) return r.how === 'auto' ? ', from the readings' : ` by ${r.by}`;
  return `, ${resolvedSentence(r, tz).replace(/^Resolved\s*/, '')}`;
}

let shown: Alert | undefined;
const acted: Set<(a: Alert) => void> = new Set();

/** Called with the alert as it is after an action taken in the dialog. */
export function onAlertActed(fn: (a: Alert) => void) {
  acted.add(fn);
}

/** The alert's status in words, as a badge. */
export function statusBadge(a: Alert) {
  // A duty the record superseded (an earlier inspection or pump-out on record) was neither met nor missed.
  if (a.status === 'resolved' && a.resolution?.evidence?.superseded === true)
    return badge('superseded by the record', 'info');
  if (a.status === 'resolved')
    return badge(
      a.withinDeadline === false ? 'resolved late' : 'resolved',
      a.withinDeadline === false ? 'warn' : 'ok',
    );
  return badge(a.status, a.status === 'open' ? 'warn' : 'info');
}

/** The link to an alert, as the address bar shows it. */
export const alertLink = (id: string) =>
  `${location.origin}${location.pathname}#/alerts/${encodeURIComponent(id)}`;

function permalink(a: Alert) {
  const status = h('span', { class: 'small muted', role: 'status' });
  const link = h('input', {
    id: 'alert-link',
    type: 'text',
    readonly: true,
    value: alertLink(a.id),
    'aria-label': 'Link to this alert',
  });
  return h(
    'p',
    { class: 'row permalink' },
    h('a', { href: `#/alerts/${encodeURIComponent(a.id)}` }, 'Link to this alert'),
    link,
    h(
      'button',
      {
        type: 'button',
        class: 'secondary small',
        id: 'alert-link-copy',
        onclick: () => {
          copyText(alertLink(a.id), link).then((how) => {
            status.textContent = how === 'copied' ? 'Link copied.' : 'Link selected: press Ctrl+C to copy.';
          });
        },
      },
      'Copy link',
    ),
    status,
  );
}

function afterAction(a: Alert) {
  upsertAlert(a);
  changed();
  for (const fn of acted) fn(a);
  renderAlert(a);
}

export function renderAlert(a: Alert) {
  shown = a;
  const tz = siteZone(a.siteId);
  const now = Date.now();
  const overdue = isOverdue(a, now);
  const site = siteById(a.siteId);
  const device = a.deviceId ? deviceOf(a.siteId, a.deviceId) : undefined;
  replace(
    byId('alert-title'),
    ruleLabel(a.rule),
    ' ',
    statusBadge(a),
    overdue ? [' ', badge('OVERDUE', 'bad')] : null,
    isActiveAlarm(a) ? [' ', badge('Alarm', 'alarm')] : null,
  );
  const t = (v: string | undefined) => (v ? formatTime(v, tz) : '—');
  const resolution = a.resolution;
  replace(
    byId('alert-body'),
    h('p', { class: 'alert-message' }, sameFormat(a.message, tz)),
    isActiveAlarm(a) ? h('p', { class: 'msg msg-alarm' }, 'The device still reports this alarm.') : null,
    h(
      'dl',
      { class: 'kv' },
      h('dt', null, 'Site'),
      h('dd', null, h('a', { href: `#/sites/${encodeURIComponent(a.siteId)}` }, site?.name ?? a.siteId)),
      a.deviceId
        ? [
            h('dt', null, 'Device'),
            h('dd', null, device?.name ? `${device.name} (${a.deviceId})` : a.deviceId),
          ]
        : null,
      h('dt', null, 'Raised'),
      h('dd', null, t(a.raisedAt)),
      h('dt', null, 'Due'),
      h(
        'dd',
        { class: overdue ? 'text-bad' : '' },
        a.dueAt
          ? `${t(a.dueAt)}${a.status !== 'resolved' ? ` (${relativeDue(a.dueAt, now)})` : ''}`
          : 'no deadline',
      ),
      a.originalDueAt && a.originalDueAt !== a.dueAt
        ? [h('dt', null, 'Deadline the rule set'), h('dd', null, t(a.originalDueAt))]
        : null,
      a.acknowledgedAt
        ? [
            h('dt', null, 'Acknowledged'),
            h('dd', null, `${t(a.acknowledgedAt)}${a.acknowledgedBy ? ` by ${a.acknowledgedBy}` : ''}`),
          ]
        : null,
      a.resolvedAt
        ? [
            h('dt', null, 'Resolved'),
            h(
              'dd',
              null,
              t(a.resolvedAt),
              resolution ? resolvedPhrase(resolution, tz) : '',
              a.withinDeadline === undefined
                ? ''
                : a.withinDeadline
                  ? ', within the deadline'
                  : ', after the deadline',
              resolution?.evidence?.resolvedWhileActive === true
                ? h('div', null, badge('resolved while the alarm was still active', 'warn'))
                : null,
              resolution?.message ? h('div', null, sameFormat(resolution.message, tz)) : null,
              resolution?.cause ? h('div', { class: 'small' }, causeLink(a.siteId, resolution.cause)) : null,
              recordedValues(resolution?.evidence, tz, 'What the resolution rests on'),
            ),
          ]
        : null,
    ),
    permalink(a),
    h('h3', null, 'Evidence'),
    factList(evidenceLines(a, tz).map((l) => ({ ...l, text: sameFormat(l.text, tz) }))),
    h('h3', null, 'History'),
    historyList(a, tz),
  );
  // The gateway's answer re-draws the forms the person may already be typing in: their words stay.
  replaceKeeping(byId('alert-actions'), actionsSection(a, afterAction));
}

let opened: string | undefined;

/** Opens an alert's dialog: from the page's copy at once, then as the gateway answers it. */
export async function openAlert(id: string, had?: Alert) {
  opened = id;
  const dialog = byId('alert-dialog') as HTMLDialogElement;
  const cached = had ?? state.active.get(id);
  clearMessages();
  if (cached) renderAlert(cached);
  else {
    shown = undefined;
    replace(byId('alert-title'), 'Alert');
    replace(byId('alert-body'), h('p', { class: 'muted' }, 'Loading…'));
    replace(byId('alert-actions'));
  }
  if (!dialog.open) dialog.showModal();
  try {
    renderAlert(await get('GET /api/alerts/:id', { params: { id } }));
  } catch (e) {
    const err = byId('dialog-error');
    err.textContent = describeError(e);
    err.title = errorDetail(e);
    err.className = 'msg msg-bad';
    if (!cached) replace(byId('alert-body'));
  }
}

/** The id of the alert the dialog was last opened for (open or closed, found or not). */
export const lastShownAlertId = () => opened;

/** The id of the alert the dialog shows, while it is open. */
export function shownAlertId() {
  return (byId('alert-dialog') as HTMLDialogElement).open ? shown?.id : undefined;
}

/** A live change of the alert shown in the dialog (keeps what the user is typing). */
export function alertChangedForDialog(a: Alert) {
  if (shownAlertId() !== a.id || !shown) return;
  const typing = document.activeElement && byId('alert-actions').contains(document.activeElement);
  if (typing && shown.status === a.status) return;
  renderAlert(a);
}

/** Reads the shown alert again (the live feed's copy lacks its evidence in words and alarm state). */
export async function refreshDialog(id: string) {
  if (shownAlertId() !== id) return;
  const a = await get('GET /api/alerts/:id', { params: { id } });
  alertChangedForDialog(a);
}
