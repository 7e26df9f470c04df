/**
 * The inspections waiting on this phone, listed in words: the site's name, the kind of inspection and
 * the duty it is for, its time in the site's zone (named), the inspector; from the page's sites, or the
 * copy kept on this phone when the gateway cannot be reached. Never an id or a UTC time.
 */
import { INSPECTION_SIDE_LABELS } from '../../../../shared/src/api/inspectionWords.ts';
import { type FieldRule, type FieldSite, fieldCopy, fieldRules } from '../../field-copy.js';
import { state } from '../../state.js';
import { byId, h, replace } from '../../ui/dom.js';
import { formatTime } from '../../ui/format.js';
import { discard, type QueuedInspection, queued } from './outbox.js';

/** What the list needs of the form. */
export interface OutboxForm {
  site(id: string): FieldSite | undefined;
  kindWord(kind: string): string;
  /** Puts a refused inspection back into the form. */
  fix(e: QueuedInspection): void;
  /** The inspection is discarded (the form forgets it, if it holds it). */
  discarded(clientId: string): void;
  sendNow(): void;
}

/**
 * The labels of the duties an inspection of this kind, on this side, at a site of this kind meets (as
 * the gateway's rules say: none when it meets none).
 */
function dutiesMet(
  rules: readonly FieldRule[],
  kind: string,
  side: string | undefined,
  siteKind: string | undefined,
): string[] {
  return rules
    .filter(
      (r) =>
        r.meetsInspections.includes(kind) &&
        (side === undefined || (r.meetsSides as readonly string[]).includes(side)) &&
        (r.siteKinds.length === 0 || (siteKind !== undefined && r.siteKinds.includes(siteKind))),
    )
    .map((r) => r.label);
}

/** The duties this inspection meets (the page's rules, or the copy's), in words; empty when none. */
function dutyWords(e: QueuedInspection, site: FieldSite | undefined): string {
  const rules = state.rules.length ? fieldRules(state.rules) : (fieldCopy()?.rules ?? []);
  const duties = dutiesMet(rules, e.kind, e.side, site?.kind);
  if (!duties.length) return '';
  return ` — for the dut${duties.length === 1 ? 'y' : 'ies'}: ${duties.join(', ')}`;
}

/** The site's name and zone: the form's, else as the inspection kept them (never its id alone). */
function placeOf(e: QueuedInspection, form: OutboxForm) {
  const site = form.site(e.siteId);
  return {
    site,
    name: site?.name ?? e.siteName ?? 'a site this phone no longer knows',
    zone: site?.timezone ?? e.timezone,
  };
}

/** "Maple Ridge at Dec 7, 2026, 4:05 PM EST": what an inspection is, in words. */
export function inspectionWords(e: QueuedInspection, form: OutboxForm): string {
  const { name, zone } = placeOf(e, form);
  return zone ? `${name} at ${formatTime(e.at, zone)}` : name;
}

function outboxItem(e: QueuedInspection, form: OutboxForm) {
  const { site, name, zone } = placeOf(e, form);
  const shots = (e.findings ?? []).reduce((n, f) => n + f.photos.length, 0);
  const confirmDiscard = h('button', { type: 'button', class: 'danger', hidden: true }, 'Yes, discard it');
  confirmDiscard.addEventListener('click', () => {
    form.discarded(e.clientId);
    void discard(e.clientId);
  });
  return h(
    'li',
    { 'data-client-id': e.clientId },
    h(
      'p',
      null,
      h('strong', { class: 'outbox-site' }, name),
      ' · ',
      h('span', { class: 'outbox-kind' }, `${form.kindWord(e.kind)}${dutyWords(e, site)}`),
    ),
    h(
      'p',
      { class: 'small' },
      zone ? h('span', { class: 'outbox-at' }, formatTime(e.at, zone)) : 'time zone not known',
      ` · ${e.inspector}`,
      e.side ? ` · ${INSPECTION_SIDE_LABELS[e.side]}` : '',
      shots ? ` · ${shots} photo${shots === 1 ? '' : 's'}` : '',
    ),
    e.refusal
      ? h('p', { class: 'msg msg-bad', title: e.refusal.detail }, `The gateway refused it: ${e.refusal.text}`)
      : h('p', { class: 'small muted' }, 'Waiting to be sent.'),
    h(
      'div',
      { class: 'row' },
      e.refusal
        ? h(
            'button',
            {
              type: 'button',
              onclick: () => {
                form.fix(e);
                byId('inspect-form').scrollIntoView();
              },
            },
            'Fix it in the form',
          )
        : h('button', { type: 'button', class: 'secondary', onclick: () => form.sendNow() }, 'Send now'),
      h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          onclick: (ev: Event) => {
            (ev.currentTarget as HTMLElement).hidden = true;
            confirmDiscard.hidden = false;
          },
        },
        'Discard',
      ),
      confirmDiscard,
    ),
  );
}

/** Draws the list of the inspections waiting on this phone, and their count. */
export async function renderOutbox(form: OutboxForm): Promise<void> {
  const list = await queued();
  const count = byId('outbox-count');
  count.hidden = list.length === 0;
  count.textContent = `${list.length} inspection${list.length === 1 ? '' : 's'} waiting to be sent`;
  byId('outbox').hidden = list.length === 0;
  replace(
    byId('outbox-list'),
    list.map((e) => outboxItem(e, form)),
  );
}
