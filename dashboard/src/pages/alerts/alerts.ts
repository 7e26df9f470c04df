/**
 * The alerts table with its filters, most urgent first: overdue duties (the longest overdue first), then
 * the alarms a device still reports, then the soonest due, then those without a deadline. The dialog of
 * one alert: `ui/alert-dialog.ts`.
 */

import { describeError, errorDetail, get, getPage, type RouteRequest } from '../../api.js';
import {
  byUrgency,
  deviceLabel,
  isActiveAlarm,
  isOverdue,
  ruleLabel,
  ruleOf,
  siteName,
  siteZone,
  state,
  withView,
} from '../../state.js';
import { openAlert as openDialog, statusBadge } from '../../ui/alert-dialog.js';
import { badge, byId, cell, h, replace } from '../../ui/dom.js';
import { formatTime, relativeDue } from '../../ui/format.js';
import { MoreList } from '../../ui/more.js';
import { fillSiteFilter } from '../../ui/site-filter.js';

export type Alert = import('../../state.js').Alert;
export type Child = import('../../ui/dom.js').Child;
export { cell };

/** Alerts a page: the newest first; "Show more alerts" reads the next. */
export const ALERTS_PAGE = 100;

/** The alerts shown, and the next page of those asked for (the gateway's Link) when older ones follow. */
const list = new MoreList<'GET /api/alerts', Alert>({
  route: 'GET /api/alerts',
  items: (body) => body,
  noun: 'alerts',
  key: (a) => a.id,
  shown: () => {
    sayShown();
    renderAlertsTable();
  },
  failed: (e) => sayError(e),
});

/**
 * Opens an alert's dialog (from the table's copy, the page's, or the gateway). On the alerts page its
 * link (#/alerts/<id>) goes to the address bar, so a reload or a bookmark opens it again.
 */
export function openAlert(id: string) {
  if (location.hash.startsWith('#/alerts'))
    history.replaceState(null, '', `#/alerts/${encodeURIComponent(id)}`);
  return openDialog(
    id,
    list.rows.find((r) => r.id === id),
  );
}

/** Fills the filter selects (sites change only with the configuration). */
export function initAlertFilters() {
  fillSiteFilter(byId('f-site') as HTMLSelectElement);
  const rule = byId('f-rule') as HTMLSelectElement;
  if (rule.options.length <= 1)
    for (const r of state.rules) rule.appendChild(h('option', { value: r.id }, r.label));
}

/** The alerts' filters, as the list's query takes them. */
type Filters = NonNullable<RouteRequest<'GET /api/alerts'>['query']>;

function filters(): Filters {
  const v = (id: string) => (byId(id) as HTMLInputElement).value;
  return {
    siteId: v('f-site') || undefined,
    // The select's options are the list's statuses.
    status: (v('f-status') || undefined) as Filters['status'],
    rule: v('f-rule') || undefined,
    overdue: (byId('f-overdue') as HTMLInputElement).checked ? 'true' : undefined,
  };
}

/** What the page says of the alerts shown: how many, and whether older ones follow. */
function sayShown() {
  const out = byId('alerts-status');
  const n = `${list.rows.length} alert${list.rows.length === 1 ? '' : 's'}`;
  out.textContent = list.next
    ? `The newest ${n}, most urgent first. ${list.older}`
    : `${n}, most urgent first`;
  out.classList.remove('text-bad');
  out.removeAttribute('title');
  const place = byId('alerts-more');
  if (list.button.parentElement !== place) replace(place, list.button);
}

function sayError(e: unknown) {
  const out = byId('alerts-status');
  out.textContent = describeError(e);
  out.title = errorDetail(e);
  out.classList.add('text-bad');
}

/** The newest list asked for: an older answer (other filters, a slower request) is not shown over it. */
let asked = 0;

export async function loadAlerts() {
  const mine = ++asked;
  try {
    const page = await getPage('GET /api/alerts', { query: { ...filters(), limit: ALERTS_PAGE } });
    if (mine !== asked) return;
    list.start(page.items, page.next);
    sayShown();
    renderAlertsTable();
  } catch (e) {
    if (mine === asked) sayError(e);
  }
}

/** Reads one alert again (the live feed's copy lacks the evidence in words and the alarm's state). */
export async function refreshAlertRow(id: string) {
  const i = list.rows.findIndex((r) => r.id === id);
  if (i < 0) return;
  list.rows[i] = await get('GET /api/alerts/:id', { params: { id } });
  renderAlertsTable();
}

/**
 * A live change: update the row in place when it is shown; reload when it may now match the filters.
 */
export function alertChangedForTable(a: Alert) {
  const i = list.rows.findIndex((r) => r.id === a.id);
  const f = filters();
  const matches =
    (!f.siteId || f.siteId === a.siteId) &&
    (!f.status || f.status === a.status) &&
    (!f.rule || f.rule === a.rule);
  if (i >= 0 && matches) {
    list.rows[i] = withView(a, list.rows[i]);
    renderAlertsTable();
  } else if (i >= 0 || matches) void loadAlerts();
}

/** How urgent an alert is, as a badge: overdue, an alarm still on, due, or no deadline. */
export function urgencyBadge(a: Alert, now: number) {
  if (a.status === 'resolved') return h('span', { class: 'muted' }, 'done');
  if (isOverdue(a, now)) return badge('OVERDUE', 'bad');
  if (isActiveAlarm(a)) return badge('Alarm', 'alarm');
  if (a.dueAt) return badge(ruleOf(a.rule)?.meetsInspections.length ? 'Inspection due' : 'Due', 'due');
  return badge('No deadline', 'muted');
}

export function renderAlertsTable() {
  const now = Date.now();
  const body = byId('alerts-body');
  const sorted = [...list.rows].sort(byUrgency(now));
  replace(
    body,
    sorted.length
      ? sorted.map((a) => {
          const tz = siteZone(a.siteId);
          const overdue = isOverdue(a, now);
          const alarm = isActiveAlarm(a);
          return h(
            'tr',
            {
              class: overdue ? 'row-overdue' : alarm ? 'row-alarm' : '',
              'data-alert': a.id,
              'data-urgency': overdue ? 'overdue' : alarm ? 'alarm' : a.dueAt ? 'due' : 'none',
            },
            cell(
              'Rule',
              h(
                'button',
                { type: 'button', class: 'linklike', onclick: () => void openAlert(a.id) },
                ruleLabel(a.rule),
              ),
            ),
            cell('Urgency', urgencyBadge(a, now)),
            cell(
              'Due',
              a.dueAt
                ? [
                    h('time', { datetime: a.dueAt }, formatTime(a.dueAt, tz)),
                    a.status !== 'resolved' ? h('div', { class: 'small' }, relativeDue(a.dueAt, now)) : null,
                  ]
                : h('span', { class: 'muted' }, 'no deadline'),
            ),
            cell('Site', siteName(a.siteId)),
            cell('Device', a.deviceId ? deviceLabel(a.siteId, a.deviceId) : '—'),
            cell('Status', statusBadge(a)),
            cell('Raised', h('time', { datetime: a.raisedAt }, formatTime(a.raisedAt, tz))),
          );
        })
      : h('tr', null, h('td', { colspan: 7, class: 'muted' }, 'No alerts match these filters.')),
  );
}
