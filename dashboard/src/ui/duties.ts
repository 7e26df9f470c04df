/**
 * A site's open duties as a list, most urgent first: each with its rule, device, state and due time in the
 * site's zone, a button opening the alert. The overview's site cards and a site's page show them.
 */
import { byUrgency, isActiveAlarm, isOverdue, ruleLabel } from '../state.js';
import { badge, h } from './dom.js';
import { formatTime, relativeDue } from './format.js';

export type Alert = import('../state.js').Alert;

/** A site's duties, most urgent first (the order of the alerts page). */
export function sortDuties(alerts: Alert[], now: number) {
  return [...alerts].sort(byUrgency(now));
}

/** A duty's line; `openAlert` undefined (the public view): its rule as words, opening nothing. */
export function dutyItem(a: Alert, tz: string, now: number, openAlert?: (id: string) => void) {
  const overdue = isOverdue(a, now);
  const alarm = isActiveAlarm(a);
  return h(
    'li',
    {
      class: `duty${overdue ? ' duty-overdue' : alarm ? ' duty-alarm' : ''}`,
      'data-alert': a.id,
      'data-rule': a.rule,
    },
    openAlert
      ? h(
          'button',
          {
            type: 'button',
            class: 'linklike duty-rule',
            'data-key': `duty-${a.id}`,
            onclick: () => openAlert(a.id),
          },
          ruleLabel(a.rule),
        )
      : h('span', { class: 'duty-rule' }, ruleLabel(a.rule)),
    a.deviceId ? h('span', { class: 'muted' }, ` · ${a.deviceId}`) : null,
    ' ',
    overdue ? badge('OVERDUE', 'bad') : null,
    alarm ? badge('Alarm', 'alarm') : null,
    a.status === 'acknowledged' ? badge('acknowledged', 'info') : badge(a.status, 'warn'),
    h(
      'div',
      { class: 'duty-due' },
      a.dueAt
        ? [
            'Due ',
            h('time', { datetime: a.dueAt }, formatTime(a.dueAt, tz)),
            ' ',
            h('strong', { class: overdue ? 'text-bad' : '' }, `(${relativeDue(a.dueAt, now)})`),
          ]
        : ['Raised ', h('time', { datetime: a.raisedAt }, formatTime(a.raisedAt, tz)), ' · no deadline'],
    ),
  );
}
