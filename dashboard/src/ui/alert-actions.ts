/**
 * What may be done with an alert, and the forms for it: acknowledge, resolve, extend (an engineer's
 * letter), record an inspection. Only what the rule (GET /api/rules) and the person's role allow is
 * offered; what is not says why, in words. A resolution the gateway refuses because the device still
 * reports the alarm asks the question and sends it again with the confirmation.
 */
import { ApiError, describeError, post } from '../api.js';
import { atLeast, isScoped, session } from '../session.js';
import { ruleOf, siteZone } from '../state.js';
import { byId, h, replace } from './dom.js';
import { utcToZonedInput, zonedToUtc } from './format.js';

export type Alert = import('../state.js').Alert;
export type Me = import('../session.js').Me;
export type Rule = import('../state.js').Rule;

/** One action: offered, or not with the reason. */
export type Allowed = { ok: true } | { ok: false; why: string };

export interface AllowedActions {
  acknowledge: Allowed;
  resolve: Allowed;
  extend: Allowed;
  inspect: Allowed;
}

const yes: Allowed = { ok: true };
const no = (why: string): Allowed => ({ ok: false, why });
const article = (role: string) => (/^[aeiou]/i.test(role) ? `an ${role}` : `a ${role}`);

/** What `me` may do with alert `a` of rule `rule` (pure: the rule's words and the person's role). */
export function allowedActions(a: Alert, rule: Rule | undefined, me: Me | null): AllowedActions {
  const signIn = no('Sign in (or enter an API token at the top of the page) to act on this alert.');
  if (a.status === 'resolved') {
    const done = no('This alert is resolved: nothing more is to be done.');
    return { acknowledge: done, resolve: done, extend: done, inspect: done };
  }
  const acts = Boolean(me) && (atLeast(me, 'inspector') || isScoped(me));
  const you = me ? ` (you are signed in as ${article(me.role)})` : '';
  const asInspector = !me ? signIn : acts ? yes : no(`This needs the inspector role${you}.`);
  const acknowledge =
    a.status === 'acknowledged'
      ? no(`Already acknowledged${a.acknowledgedBy ? ` by ${a.acknowledgedBy}` : ''}.`)
      : asInspector;
  let extend: Allowed;
  if (!a.dueAt) extend = no('This alert has no deadline to extend.');
  else if (!rule?.extendable)
    extend = no(rule?.noExtension ?? "No engineer's letter can extend this deadline: the law sets it.");
  else if (!me) extend = signIn;
  else if (!atLeast(me, 'engineer'))
    extend = no(`Recording an engineer's letter needs the engineer role${you}.`);
  else extend = yes;
  const inspect = !rule?.meetsInspections.length
    ? no(
        'No inspection closes this alert: it closes when the readings show the condition has ended, or when a person resolves it with a note.',
      )
    : asInspector;
  const resolve = rule?.noManualResolve ? no(rule.noManualResolve) : asInspector;
  return { acknowledge, resolve, extend, inspect };
}

function say(id: string, text: string, kind: 'ok' | 'bad' | '') {
  const el = byId(id);
  el.textContent = text;
  el.className = `msg${kind ? ` msg-${kind}` : ''}`;
  if (text) el.scrollIntoView({ block: 'nearest' });
}

/** Clears the dialog's messages and question. */
export function clearMessages() {
  say('dialog-error', '', '');
  say('dialog-ok', '', '');
  replace(byId('dialog-confirm'));
}

/** Whether the gateway refused a resolution because the device still reports the alarm active. */
const stillActive = (e: unknown) => e instanceof ApiError && e.status === 409 && e.code === 'STILL_ACTIVE';

/** Sends an action (confirmed: resolving while the device still reports the alarm). */
type Send = (confirmed: boolean) => Promise<Alert>;

/** Sends an action; the answer (the alert as it is now) goes to `done`. */
async function act(send: Send, confirmed: boolean, ok: string, done: (a: Alert) => void) {
  clearMessages();
  try {
    const a = await send(confirmed);
    done(a);
    say('dialog-ok', ok, 'ok');
    byId('dialog-ok').focus();
  } catch (e) {
    if (stillActive(e) && !confirmed) return confirmStillActive(send, done);
    say('dialog-error', describeError(e), 'bad');
  }
}

/** The device still reports the alarm: resolving it anyway is a choice the history records. */
function confirmStillActive(send: Send, done: (a: Alert) => void) {
  const box = byId('dialog-confirm');
  replace(
    box,
    h(
      'div',
      { class: 'msg msg-warn', role: 'alert' },
      h('p', null, h('strong', null, 'The device still reports the alarm. Resolve anyway?')),
      h('p', { class: 'small' }, 'The history will show it was resolved while the alarm was still active.'),
      h(
        'div',
        { class: 'row' },
        h(
          'button',
          {
            type: 'button',
            id: 'confirm-active',
            class: 'danger',
            onclick: () => void act(send, true, 'Resolved while the alarm was still active.', done),
          },
          'Resolve anyway',
        ),
        h('button', { type: 'button', class: 'secondary', onclick: () => replace(box) }, 'Cancel'),
      ),
    ),
  );
  (box.querySelector('#confirm-active') as HTMLElement | null)?.focus();
}

const val = (el: HTMLElement) => (el as HTMLInputElement).value.trim();

function ackForm(id: string, done: (a: Alert) => void) {
  const note = h('input', { id: 'ack-note', type: 'text', maxlength: 4000, autocomplete: 'off' });
  return h(
    'form',
    {
      class: 'action',
      id: 'ack-form',
      onsubmit: (e) => {
        e.preventDefault();
        const text = val(note);
        const send = () =>
          post('POST /api/alerts/:id/ack', { params: { id }, body: text ? { note: text } : {} });
        void act(send, false, 'Acknowledged.', done);
      },
    },
    h('h3', null, 'Acknowledge'),
    h('label', { for: 'ack-note' }, 'Note (optional)'),
    note,
    h('button', { type: 'submit' }, 'Acknowledge'),
  );
}

function resolveForm(a: Alert, id: string, done: (a: Alert) => void) {
  const note = h('textarea', {
    id: 'resolve-note',
    rows: 2,
    maxlength: 4000,
    'aria-describedby': 'resolve-hint',
  });
  return h(
    'form',
    {
      class: 'action',
      id: 'resolve-form',
      novalidate: true,
      onsubmit: (e) => {
        e.preventDefault();
        const text = val(note);
        if (!text) {
          note.setAttribute('aria-invalid', 'true');
          say('dialog-error', 'A note is required to resolve an alert: say what was done.', 'bad');
          note.focus();
          return;
        }
        note.removeAttribute('aria-invalid');
        // The page knows the device still reports the alarm: it asks before sending (and the gateway's
        // refusal, should the alarm come back meanwhile, asks the same).
        const send: Send = (confirmed) =>
          post('POST /api/alerts/:id/resolve', {
            params: { id },
            body: { note: text, ...(confirmed ? { confirmActive: true } : {}) },
          });
        if (a.alarm?.active) {
          clearMessages();
          confirmStillActive(send, done);
        } else void act(send, false, 'Resolved.', done);
      },
    },
    h('h3', null, 'Resolve'),
    h('label', { for: 'resolve-note' }, 'Note (required)'),
    note,
    h('p', { id: 'resolve-hint', class: 'small muted' }, 'What was done, by whom; it stays in the history.'),
    h('button', { type: 'submit' }, 'Resolve'),
  );
}

function extendForm(a: Alert, id: string, tz: string, done: (a: Alert) => void) {
  const due = a.dueAt ? Date.parse(a.dueAt) : Date.now();
  const newDue = h('input', {
    id: 'ext-due',
    type: 'datetime-local',
    value: utcToZonedInput(due + 86_400_000, tz),
  });
  const engineer = h('input', { id: 'ext-engineer', type: 'text', autocomplete: 'name' });
  const letter = h('input', { id: 'ext-letter', type: 'text', autocomplete: 'off' });
  const note = h('input', { id: 'ext-note', type: 'text', maxlength: 4000, autocomplete: 'off' });
  return h(
    'form',
    {
      class: 'action',
      id: 'extend-form',
      novalidate: true,
      onsubmit: (e) => {
        e.preventDefault();
        const ms = zonedToUtc(val(newDue), tz);
        const missing = [
          Number.isFinite(ms) ? null : 'the new due time',
          val(engineer) ? null : 'the engineer',
          val(letter) ? null : 'the letter reference',
        ].filter(Boolean);
        if (missing.length) {
          say('dialog-error', `Enter ${missing.join(', ')}.`, 'bad');
          return;
        }
        const text = val(note);
        const body = {
          newDueAt: new Date(ms).toISOString(),
          engineer: val(engineer),
          letterRef: val(letter),
          ...(text ? { note: text } : {}),
        };
        void act(
          () => post('POST /api/alerts/:id/extend', { params: { id }, body }),
          false,
          'Extended.',
          done,
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
    note,
    h('button', { type: 'submit' }, 'Extend'),
  );
}

function inspectLink(a: Alert, rule: Rule) {
  // The form opens with the kind chosen: the one kind that meets it (an annual inspection, a pump-out),
  // or among several the one the duty is named after (a storm inspection's alert: a storm inspection).
  const words = rule.id.split('-');
  const kind =
    rule.meetsInspections.length === 1
      ? rule.meetsInspections[0]
      : rule.meetsInspections.find((k) => words.includes(k));
  const only = kind ? `/${encodeURIComponent(kind)}` : '';
  return h(
    'div',
    { class: 'action', id: 'inspect-action' },
    h('h3', null, 'Record an inspection'),
    h('p', { class: 'small' }, 'An inspection recorded for this site closes this alert.'),
    h(
      'a',
      {
        class: 'button',
        href: `#/inspect/${encodeURIComponent(a.siteId)}${only}`,
        onclick: () => (byId('alert-dialog') as HTMLDialogElement).close(),
      },
      'Record an inspection',
    ),
  );
}

/** The actions section of the dialog: the forms allowed, then the reasons for those not offered. */
export function actionsSection(a: Alert, done: (a: Alert) => void) {
  if (a.status === 'resolved') return null;
  const rule = ruleOf(a.rule);
  const allowed = allowedActions(a, rule, session.me);
  const tz = siteZone(a.siteId);
  const reasons = [
    ...new Set(
      (['acknowledge', 'resolve', 'extend', 'inspect'] as const)
        .map((k) => allowed[k])
        .flatMap((x) => (x.ok ? [] : [x.why])),
    ),
  ];
  return [
    h(
      'section',
      { class: 'actions', 'aria-label': 'Actions' },
      allowed.acknowledge.ok ? ackForm(a.id, done) : null,
      allowed.resolve.ok ? resolveForm(a, a.id, done) : null,
      allowed.extend.ok ? extendForm(a, a.id, tz, done) : null,
      allowed.inspect.ok && rule ? inspectLink(a, rule) : null,
    ),
    reasons.length
      ? h(
          'ul',
          { class: 'not-offered small muted', 'aria-label': 'Not offered' },
          reasons.map((r) => h('li', { 'data-reason': '' }, r)),
        )
      : null,
  ];
}
