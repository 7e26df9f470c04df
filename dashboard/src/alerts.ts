/** The alerts table with its filters, and the alert dialog: message, evidence, history and actions. */
import { ApiError, describeError, get, post } from './api.js';
import { badge, byId, h, replace } from './dom.js';
import { formatTime, relativeDue, utcToZonedInput, zonedToUtc } from './format.js';
import { session } from './session.js';
import {
  changed,
  fillSiteFilter,
  isOverdue,
  ruleLabel,
  ruleOf,
  siteById,
  siteZone,
  state,
  upsertAlert,
} from './state.js';

export type Alert = import('./state.js').Alert;
export type Child = import('./dom.js').Child;

/**
 * A table cell with a label for the stacked phone layout; its content sits in one wrapper.
 */
export const cell = (label: string, ...content: Child[]) =>
  h('td', { 'data-label': label }, h('div', null, ...content));

let rows: Alert[] = [];

let shown: Alert | undefined;

/** Fills the filter selects (sites change only with the configuration). */
export function initAlertFilters() {
  fillSiteFilter(byId('f-site') as HTMLSelectElement);
  const rule = byId('f-rule') as HTMLSelectElement;
  if (rule.options.length <= 1)
    for (const r of state.rules) rule.appendChild(h('option', { value: r.id }, r.label));
}

function filters() {
  const v = (id: string) => (byId(id) as HTMLInputElement).value;
  return {
    siteId: v('f-site') || undefined,
    status: v('f-status') || undefined,
    rule: v('f-rule') || undefined,
    overdue: (byId('f-overdue') as HTMLInputElement).checked ? 'true' : undefined,
  };
}

export async function loadAlerts() {
  const out = byId('alerts-status');
  try {
    rows = await get('/api/alerts', { ...filters(), limit: 500 });
    out.textContent = `${rows.length} alert${rows.length === 1 ? '' : 's'}`;
    out.classList.remove('text-bad');
    renderAlertsTable();
  } catch (e) {
    out.textContent = describeError(e);
    out.classList.add('text-bad');
  }
}

/**
 * A live change: update the row in place when it is shown; reload when it may now match the filters.
 */
export function alertChangedForTable(a: Alert) {
  const i = rows.findIndex((r) => r.id === a.id);
  const f = filters();
  const matches =
    (!f.siteId || f.siteId === a.siteId) &&
    (!f.status || f.status === a.status) &&
    (!f.rule || f.rule === a.rule);
  if (i >= 0 && matches) {
    rows[i] = a;
    renderAlertsTable();
  } else if (i >= 0 || matches) void loadAlerts();
}

export function renderAlertsTable() {
  const now = Date.now();
  const body = byId('alerts-body');
  replace(
    body,
    rows.length
      ? rows.map((a) => {
          const tz = siteZone(a.siteId);
          const overdue = isOverdue(a, now);
          return h(
            'tr',
            { class: overdue ? 'row-overdue' : '', 'data-alert': a.id },
            cell(
              'Rule',
              h(
                'button',
                { type: 'button', class: 'linklike', onclick: () => openAlert(a.id) },
                ruleLabel(a.rule),
              ),
            ),
            cell('Site', siteById(a.siteId)?.name ?? a.siteId),
            cell('Device', a.deviceId ?? '—'),
            cell('Raised', h('time', { datetime: a.raisedAt }, formatTime(a.raisedAt, tz))),
            cell(
              'Due',
              a.dueAt
                ? [
                    h('time', { datetime: a.dueAt }, formatTime(a.dueAt, tz)),
                    a.status !== 'resolved' ? h('div', { class: 'small' }, relativeDue(a.dueAt, now)) : null,
                  ]
                : '—',
            ),
            cell('Status', statusBadge(a)),
            cell('Overdue', overdue ? badge('OVERDUE', 'bad') : h('span', { class: 'muted' }, 'no')),
          );
        })
      : h('tr', null, h('td', { colspan: 7, class: 'muted' }, 'No alerts match these filters.')),
  );
}

function statusBadge(a: Alert) {
  if (a.status === 'resolved')
    return badge(
      a.withinDeadline === false ? 'resolved late' : 'resolved',
      a.withinDeadline === false ? 'warn' : 'ok',
    );
  return badge(a.status, a.status === 'open' ? 'warn' : 'info');
}

function show(v: unknown) {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

function dl(obj: Record<string, unknown>, tz: string) {
  const entries = Object.entries(obj);
  if (!entries.length) return h('p', { class: 'muted' }, 'None.');
  return h(
    'dl',
    { class: 'kv' },
    entries.map(([k, v]) => [h('dt', null, k), h('dd', null, showIn(v, tz))]),
  );
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?Z$/;

function showIn(v: unknown, tz: string) {
  return typeof v === 'string' && ISO.test(v) ? formatTime(v, tz) : show(v);
}

/**
 * What a history entry says: its fields, times in the site's zone; evidence folded away.
 */
function historyDetail(detail: Record<string, unknown>, tz: string) {
  const { evidence, ...rest } = detail;
  const text = Object.entries(rest)
    .filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => `${k}: ${showIn(v, tz)}`)
    .join('; ');
  return [
    text,
    evidence && typeof evidence === 'object'
      ? h('details', null, h('summary', null, 'evidence'), dl(evidence as Record<string, unknown>, tz))
      : null,
  ];
}

function say(id: string, text: string, kind: 'ok' | 'bad' | '') {
  const el = byId(id);
  el.textContent = text;
  el.className = `msg${kind ? ` msg-${kind}` : ''}`;
  if (text) el.scrollIntoView({ block: 'nearest' });
}

/**
 * Whether the gateway refused a resolution because the device still reports the alarm active.
 */
const stillActive = (e: unknown) =>
  e instanceof ApiError &&
  e.status === 409 &&
  (e.code === 'STILL_ACTIVE' || /still.*active/i.test(e.message));

async function act(path: string, body: Record<string, unknown>, done: string) {
  say('dialog-error', '', '');
  say('dialog-ok', '', '');
  replace(byId('dialog-confirm'));
  if (!session.me) {
    say('dialog-error', 'Sign in (or enter an API token at the top of the page) first.', 'bad');
    return;
  }
  try {
    const a: Alert = await post(path, body);
    upsertAlert(a);
    changed();
    alertChangedForTable(a);
    renderAlert(a);
    say('dialog-ok', done, 'ok');
    byId('dialog-ok').focus();
  } catch (e) {
    if (stillActive(e) && body.confirmActive !== true) return confirmStillActive(path, body, e);
    say('dialog-error', describeError(e), 'bad');
  }
}

/**
 * The device still reports the alarm: resolving it anyway is a choice the history records.
 */
function confirmStillActive(path: string, body: Record<string, unknown>, e: unknown) {
  const box = byId('dialog-confirm');
  replace(
    box,
    h(
      'div',
      { class: 'msg msg-warn', role: 'alert' },
      h('p', null, 'The device still reports this alarm as active.'),
      h('p', { class: 'small' }, (e as Error).message),
      h(
        'p',
        null,
        'Resolve it anyway? The history will show it was resolved while the alarm was still active.',
      ),
      h(
        'div',
        { class: 'row' },
        h(
          'button',
          {
            type: 'button',
            id: 'confirm-active',
            class: 'danger',
            onclick: () =>
              void act(path, { ...body, confirmActive: true }, 'Resolved while the alarm was active.'),
          },
          'Resolve while active',
        ),
        h('button', { type: 'button', class: 'secondary', onclick: () => replace(box) }, 'Cancel'),
      ),
    ),
  );
  (box.querySelector('#confirm-active') as HTMLElement)?.focus();
}

function actions(a: Alert) {
  if (a.status === 'resolved') return null;
  const tz = siteZone(a.siteId);
  const base = `/api/alerts/${encodeURIComponent(a.id)}`;
  const ackNote = h('input', { id: 'ack-note', type: 'text', maxlength: 4000, autocomplete: 'off' });
  const resolveNote = h('textarea', {
    id: 'resolve-note',
    rows: 2,
    maxlength: 4000,
    'aria-describedby': 'resolve-hint',
  });
  const due = a.dueAt ? Date.parse(a.dueAt) : Date.now();
  const newDue = h('input', {
    id: 'ext-due',
    type: 'datetime-local',
    value: utcToZonedInput(due + 86_400_000, tz),
  });
  const engineer = h('input', { id: 'ext-engineer', type: 'text', autocomplete: 'name' });
  const letter = h('input', { id: 'ext-letter', type: 'text', autocomplete: 'off' });
  const extNote = h('input', { id: 'ext-note', type: 'text', maxlength: 4000, autocomplete: 'off' });
  const val = (el: HTMLElement) => (el as HTMLInputElement).value.trim();
  return h(
    'section',
    { class: 'actions', 'aria-label': 'Actions' },
    a.status === 'open'
      ? h(
          'form',
          {
            class: 'action',
            id: 'ack-form',
            onsubmit: (e) => {
              e.preventDefault();
              const note = val(ackNote);
              void act(`${base}/ack`, note ? { note } : {}, 'Acknowledged.');
            },
          },
          h('h3', null, 'Acknowledge'),
          h('label', { for: 'ack-note' }, 'Note (optional)'),
          ackNote,
          h('button', { type: 'submit' }, 'Acknowledge'),
        )
      : null,
    h(
      'form',
      {
        class: 'action',
        id: 'resolve-form',
        novalidate: true,
        onsubmit: (e) => {
          e.preventDefault();
          const note = val(resolveNote);
          if (!note) {
            resolveNote.setAttribute('aria-invalid', 'true');
            say('dialog-error', 'A note is required to resolve an alert: say what was done.', 'bad');
            resolveNote.focus();
            return;
          }
          resolveNote.removeAttribute('aria-invalid');
          void act(`${base}/resolve`, { note }, 'Resolved.');
        },
      },
      h('h3', null, 'Resolve'),
      h('label', { for: 'resolve-note' }, 'Note (required)'),
      resolveNote,
      h(
        'p',
        { id: 'resolve-hint', class: 'small muted' },
        'What was done, by whom; it stays in the history.',
      ),
      h('button', { type: 'submit' }, 'Resolve'),
    ),
    // Only a rule whose deadline the law lets an engineer's letter move offers it.
    a.dueAt && ruleOf(a.rule)?.extendable
      ? h(
          'form',
          {
            class: 'action',
            id: 'extend-form',
            novalidate: true,
            onsubmit: (e) => {
              e.preventDefault();
              const ms = zonedToUtc(val(newDue), tz);
              if (!Number.isFinite(ms)) {
                say('dialog-error', 'Enter the new due time.', 'bad');
                newDue.focus();
                return;
              }
              const note = val(extNote);
              void act(
                `${base}/extend`,
                {
                  newDueAt: new Date(ms).toISOString(),
                  engineer: val(engineer),
                  letterRef: val(letter),
                  ...(note ? { note } : {}),
                },
                'Extended.',
              );
            },
          },
          h('h3', null, "Extend (engineer's letter)"),
          h('label', { for: 'ext-due' }, `New due time (${tz})`),
          newDue,
          h('label', { for: 'ext-engineer' }, 'Engineer'),
          engineer,
          h('label', { for: 'ext-letter' }, 'Letter reference'),
          letter,
          h('label', { for: 'ext-note' }, 'Note (optional)'),
          extNote,
          h('button', { type: 'submit' }, 'Extend'),
        )
      : null,
  );
}

export function renderAlert(a: Alert) {
  shown = a;
  const tz = siteZone(a.siteId);
  const now = Date.now();
  const overdue = isOverdue(a, now);
  replace(
    byId('alert-title'),
    ruleLabel(a.rule),
    ' ',
    statusBadge(a),
    overdue ? [' ', badge('OVERDUE', 'bad')] : null,
  );
  const t = (v: string | undefined) => (v ? formatTime(v, tz) : '—');
  replace(
    byId('alert-body'),
    h('p', { class: 'alert-message' }, a.message),
    h(
      'dl',
      { class: 'kv' },
      h('dt', null, 'Alert'),
      h('dd', null, h('code', null, a.id)),
      h('dt', null, 'Site'),
      h(
        'dd',
        null,
        h('a', { href: `#/site/${encodeURIComponent(a.siteId)}` }, siteById(a.siteId)?.name ?? a.siteId),
      ),
      h('dt', null, 'Device'),
      h('dd', null, a.deviceId ?? '—'),
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
      a.originalDueAt ? [h('dt', null, 'Original due'), h('dd', null, t(a.originalDueAt))] : null,
      a.acknowledgedAt
        ? [
            h('dt', null, 'Acknowledged'),
            h('dd', null, `${t(a.acknowledgedAt)} by ${a.acknowledgedBy ?? '?'}`),
          ]
        : null,
      a.resolvedAt
        ? [
            h('dt', null, 'Resolved'),
            h(
              'dd',
              null,
              `${t(a.resolvedAt)}${a.resolution ? ` (${a.resolution.how}, by ${a.resolution.by})` : ''}`,
              a.withinDeadline === undefined ? '' : a.withinDeadline ? ' · within the deadline' : ' · LATE',
              a.resolution?.evidence?.resolvedWhileActive === true
                ? h('div', null, badge('resolved while the alarm was still active', 'warn'))
                : null,
              a.resolution?.message ? h('div', null, a.resolution.message) : null,
            ),
          ]
        : null,
    ),
    h('h3', null, 'Evidence'),
    dl(a.evidence, tz),
    h('h3', null, 'History'),
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'history' },
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            h('th', null, 'When'),
            h('th', null, 'Who'),
            h('th', null, 'What'),
            h('th', null, 'Detail'),
          ),
        ),
        h(
          'tbody',
          null,
          a.history.map((e) =>
            h(
              'tr',
              null,
              cell('When', h('time', { datetime: e.at }, t(e.at))),
              cell('Who', e.actor),
              cell('What', e.action, whileActive(e) ? badge('while active', 'warn') : null),
              h(
                'td',
                { 'data-label': 'Detail', class: 'small' },
                h('div', null, historyDetail(e.detail, tz)),
              ),
            ),
          ),
        ),
      ),
    ),
  );
  replace(byId('alert-actions'), actions(a));
}

/**
 * A history entry of a resolution the device still reported active.
 */
const whileActive = (e: import('./state.js').HistoryEntry) => {
  const evidence = e.detail?.evidence as Record<string, unknown> | undefined;
  return e.detail?.resolvedWhileActive === true || evidence?.resolvedWhileActive === true;
};

export async function openAlert(id: string) {
  const dialog = byId('alert-dialog') as HTMLDialogElement;
  say('dialog-error', '', '');
  say('dialog-ok', '', '');
  replace(byId('dialog-confirm'));
  const cached = state.active.get(id) ?? rows.find((r) => r.id === id);
  if (cached) renderAlert(cached);
  else {
    replace(byId('alert-title'), 'Alert');
    replace(byId('alert-body'), h('p', { class: 'muted' }, 'Loading…'));
    replace(byId('alert-actions'));
  }
  if (!dialog.open) dialog.showModal();
  try {
    renderAlert(await get(`/api/alerts/${encodeURIComponent(id)}`));
  } catch (e) {
    say('dialog-error', describeError(e), 'bad');
  }
}

/**
 * A live change of the alert shown in the dialog (keeps what the user is typing).
 */
export function alertChangedForDialog(a: Alert) {
  const dialog = byId('alert-dialog') as HTMLDialogElement;
  if (!dialog.open || shown?.id !== a.id) return;
  const typing = document.activeElement && byId('alert-actions').contains(document.activeElement);
  if (typing && shown.status === a.status) return;
  renderAlert(a);
}
