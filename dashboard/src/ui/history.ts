/**
 * An alert's history as sentences ("Raised by the rain gauge rg-1", "Acknowledged by Pat Officer", "Due
 * moved to Dec 1, 2026, 5:17 AM EST"), times in the site's zone. A run of updates that moved the due time
 * (a storm's due time moves with every tip while it rains) is folded into one line with its count and
 * last due time; the full list is one click away.
 */

import { deviceOf } from '../state.js';
import { badge, h } from './dom.js';
import { recordedValues } from './evidence.js';
import { formatTime, sameFormat } from './format.js';
import { resolvedSentence } from './resolution.js';

export type Alert = import('../state.js').Alert;
export type HistoryEntry = import('../state.js').HistoryEntry;

const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

/** "the rain gauge rg-1" (with its name when it has one), or the gateway when no device raised it. */
function source(a: Alert) {
  if (!a.deviceId) return "the gateway's schedule";
  const d = deviceOf(a.siteId, a.deviceId);
  const kind = d ? `the ${d.kind.replace(/-/g, ' ')} ` : 'device ';
  return `${kind}${d?.name ? `${d.name} (${a.deviceId})` : a.deviceId}`;
}

/** Whether an entry is an update that moved the due time (and may fold with its neighbours). */
const movedDue = (e: HistoryEntry) => e.action === 'updated' && e.actor === 'system' && str(e.detail.dueAt);

/** A resolution the device still reported active. */
export const whileActive = (e: HistoryEntry) => {
  const evidence = e.detail?.evidence as Record<string, unknown> | undefined;
  return e.detail?.resolvedWhileActive === true || evidence?.resolvedWhileActive === true;
};

/** What one entry says, as a sentence (and a second line with a note or message, when it has one). */
export function entrySentence(a: Alert, e: HistoryEntry, tz: string): { text: string; more?: string } {
  const d = e.detail ?? {};
  const t = (v: unknown) => formatTime(str(v), tz);
  const by = e.actor === 'system' ? '' : ` by ${e.actor}`;
  const note = str(d.note);
  switch (e.action) {
    case 'raised':
      return {
        text: e.actor === 'system' ? `Raised by ${source(a)}` : `Raised by ${e.actor}`,
        ...(str(d.message) ? { more: str(d.message) } : {}),
      };
    case 'updated':
      if (str(d.dueAt)) return { text: `Due moved to ${t(d.dueAt)}` };
      if ('dueAt' in d) return { text: 'The deadline was lifted' };
      return { text: 'Updated with new readings', ...(str(d.message) ? { more: str(d.message) } : {}) };
    case 'acknowledged':
      return { text: `Acknowledged${by}`, ...(note ? { more: `Note: ${note}` } : {}) };
    case 'resolved': {
      const how = resolvedSentence({ how: d.how, by: e.actor, cause: d.cause }, tz);
      const when =
        d.withinDeadline === true
          ? ', within the deadline'
          : d.withinDeadline === false
            ? ', after the deadline'
            : '';
      const said = str(d.message) ?? note;
      return { text: `${how}${when}`, ...(said ? { more: said } : {}) };
    }
    case 'extended': {
      const letter = str(d.letterRef)
        ? ` (letter ${str(d.letterRef)}${str(d.engineer) ? `, ${str(d.engineer)}` : ''})`
        : '';
      return {
        text: `Due extended from ${t(d.oldDueAt)} to ${t(d.newDueAt)} by an engineer's letter${letter}${by ? `, recorded${by}` : ''}`,
        ...(note ? { more: `Note: ${note}` } : {}),
      };
    }
    case 'overdue':
      return { text: `Overdue: the due time ${t(d.dueAt)} passed` };
    case 'reminder': {
      const hours = typeof d.hours === 'number' ? d.hours : undefined;
      return {
        text: `Reminder sent${hours !== undefined ? `, ${hours} h before the due time` : ''} (${t(d.dueAt)})`,
      };
    }
    default:
      return { text: `Changed${by}` };
  }
}

function entryItem(a: Alert, e: HistoryEntry, tz: string) {
  const { text, more } = entrySentence(a, e, tz);
  return h(
    'li',
    { class: 'history-entry', 'data-action': e.action },
    h('time', { datetime: e.at }, formatTime(e.at, tz)),
    h(
      'div',
      null,
      h('span', { class: 'history-text' }, text),
      whileActive(e) ? [' ', badge('while the alarm was still active', 'warn')] : null,
      more ? h('div', { class: 'small history-more' }, sameFormat(more, tz)) : null,
      recordedValues(e.detail?.evidence, tz),
    ),
  );
}

/** Consecutive runs: a run of two or more due-moving updates, or a single other entry. */
export function foldHistory(entries: readonly HistoryEntry[]): Array<HistoryEntry | HistoryEntry[]> {
  const out: Array<HistoryEntry | HistoryEntry[]> = [];
  for (const e of entries) {
    const last = out[out.length - 1];
    if (movedDue(e) && Array.isArray(last)) last.push(e);
    else if (movedDue(e)) out.push([e]);
    else out.push(e);
  }
  return out.map((x) => (Array.isArray(x) && x.length === 1 ? (x[0] as HistoryEntry) : x));
}

/** A folded run: one line ("Due moved 12 times as readings came in; last to …") and the list behind it. */
function runItem(a: Alert, run: HistoryEntry[], tz: string) {
  const last = run[run.length - 1] as HistoryEntry;
  const list = h(
    'ol',
    { class: 'history history-run', hidden: true },
    run.map((e) => entryItem(a, e, tz)),
  );
  const toggle = h(
    'button',
    {
      type: 'button',
      class: 'linklike small history-toggle',
      'aria-expanded': 'false',
      onclick: () => {
        list.hidden = !list.hidden;
        toggle.setAttribute('aria-expanded', String(!list.hidden));
        toggle.textContent = list.hidden
          ? `Show all ${run.length} changes`
          : `Hide the ${run.length} changes`;
      },
    },
    `Show all ${run.length} changes`,
  );
  return h(
    'li',
    { class: 'history-entry history-folded', 'data-action': 'updated', 'data-count': run.length },
    h('time', { datetime: last.at }, formatTime(last.at, tz)),
    h(
      'div',
      null,
      h(
        'span',
        { class: 'history-text' },
        `Due moved ${run.length} times as readings came in; last to ${formatTime(str(last.detail.dueAt), tz)}`,
      ),
      ' ',
      toggle,
      list,
    ),
  );
}

/** The history, oldest first, folded. */
export function historyList(a: Alert, tz: string) {
  if (!a.history.length) return h('p', { class: 'muted' }, 'No history recorded.');
  return h(
    'ol',
    { class: 'history' },
    foldHistory(a.history).map((x) => (Array.isArray(x) ? runItem(a, x, tz) : entryItem(a, x, tz))),
  );
}
