/**
 * The parts of the inspection form for a wastewater system (law 000): the engineer's annual inspection of
 * an alternative system or a holding tank lists what is to be remedied (equipment: 5 days, the absorption
 * field: 30, from when the town receives it); a pump-out of a tank names who pumped it and the hauler's
 * NYS DEC permit number. Shown only for those sites and kinds of inspection.
 */
import type { Deficiency, DeficiencyKind } from '../../../../shared/src/api/findings.ts';
import {
  ADVANCED_SYSTEM_SITE_KINDS,
  DEFICIENCIES_MAX,
  DEFICIENCY_KIND_LABELS,
  DEFICIENCY_KINDS,
  DEFICIENCY_NOTE_MAX,
  PUMPED_SITE_KINDS,
} from '../../../../shared/src/api/wastewaterWords.ts';
import { state } from '../../state.js';
import { h, replace } from '../../ui/dom.js';
import type { QueuedInspection } from './outbox.js';

let holder: HTMLElement | undefined;
/** What the form asks: deficiencies (an annual inspection), a hauler (a pump-out), or nothing. */
let asks: 'deficiencies' | 'hauler' | '' = '';
let rows = 0;

const has = (kinds: readonly string[], kind: string | undefined) =>
  kind !== undefined && kinds.includes(kind);

function deficiencyRow(n: number, d?: Deficiency) {
  const name = `d-${n}`;
  return h(
    'fieldset',
    { class: 'practice deficiency', 'data-deficiency': String(n) },
    h('legend', null, `Deficiency ${n + 1}`),
    h('label', { for: `${name}-kind` }, 'What it concerns'),
    h(
      'select',
      { id: `${name}-kind` },
      DEFICIENCY_KINDS.map((k) =>
        h('option', { value: k, ...(d?.kind === k ? { selected: true } : {}) }, DEFICIENCY_KIND_LABELS[k]),
      ),
    ),
    h('label', { for: `${name}-note` }, 'What is to be remedied'),
    h('textarea', { id: `${name}-note`, rows: 2, maxlength: DEFICIENCY_NOTE_MAX }, d?.note ?? ''),
  );
}

function addRow(list: HTMLElement, d?: Deficiency) {
  if (rows >= DEFICIENCIES_MAX) return;
  list.append(deficiencyRow(rows, d));
  rows++;
}

export type WastewaterFill = Pick<QueuedInspection, 'deficiencies' | 'hauler' | 'remedied'>;

/** The site's open deficiencies the page knows (an alert whose evidence names one): id and note. */
function openDeficiencies(siteId: string): Array<{ id: string; note: string }> {
  const out: Array<{ id: string; note: string }> = [];
  for (const a of state.active.values()) {
    const { deficiency, note } = a.evidence;
    if (a.siteId === siteId && typeof deficiency === 'string' && typeof note === 'string')
      out.push({ id: deficiency, note });
  }
  return out.sort((x, y) => x.id.localeCompare(y.id));
}

/** Checkboxes of the site's open deficiencies: those this visit found remedied. */
function remediedPart(siteId: string, fill: WastewaterFill) {
  const open = openDeficiencies(siteId);
  if (!open.length) return [];
  return h(
    'fieldset',
    { class: 'practice', id: 'i-remedied' },
    h('legend', null, 'Deficiencies found remedied at this visit'),
    open.map((d, i) =>
      h(
        'label',
        { class: 'row' },
        h('input', {
          type: 'checkbox',
          id: `r-${i}`,
          value: d.id,
          ...(fill.remedied?.includes(d.id) ? { checked: true } : {}),
        }),
        ` ${d.note}`,
      ),
    ),
  );
}

/** The site and kind the part was last drawn for. */
let drawnFor = '';

/** Draws the part for the form's site and kind of inspection, unless it is drawn for them already. */
export function drawWastewaterFor(
  el: HTMLElement,
  site: { id: string; kind?: string } | undefined,
  kind: string,
  force = false,
  fill?: WastewaterFill,
) {
  const key = `${site?.id ?? ''}|${site?.kind ?? ''}|${kind}`;
  if (key === drawnFor && !force) return;
  drawnFor = key;
  renderWastewater(el, site?.kind, kind, fill);
  // Any visit to an advanced system may find earlier deficiencies remedied (not a pump-out's form).
  if (site && has(ADVANCED_SYSTEM_SITE_KINDS, site.kind) && kind !== 'cleanout') {
    const part = remediedPart(site.id, fill ?? {});
    if (!Array.isArray(part)) {
      el.append(part);
      el.hidden = false;
    }
  }
}

/** Draws the part the site and kind of inspection call for (none: hidden). */
function renderWastewater(
  el: HTMLElement,
  siteKind: string | undefined,
  kind: string,
  fill: WastewaterFill = {},
) {
  holder = el;
  rows = 0;
  asks =
    kind === 'annual' && has(ADVANCED_SYSTEM_SITE_KINDS, siteKind)
      ? 'deficiencies'
      : kind === 'cleanout' && has(PUMPED_SITE_KINDS, siteKind)
        ? 'hauler'
        : '';
  el.hidden = asks === '';
  if (asks === 'deficiencies') {
    const list = h('div', { class: 'deficiencies' });
    replace(el, [
      h('legend', null, 'Deficiencies to remedy'),
      h(
        'p',
        { class: 'small muted' },
        'List what the engineer found to be remedied (equipment: a pump, blower or aerator, alarm or control panel). Each one gives the owner 5 days (equipment) or 30 days (absorption field), counted from the day the town receives this inspection; a licensed engineer’s letter may extend them. Leave the list empty when nothing was found.',
      ),
      list,
      h(
        'button',
        { type: 'button', class: 'secondary', id: 'd-add', onclick: () => addRow(list) },
        'Add a deficiency',
      ),
    ]);
    for (const d of fill.deficiencies ?? []) addRow(list, d);
  } else if (asks === 'hauler') {
    replace(el, [
      h('legend', null, 'Who pumped the tank'),
      h(
        'p',
        { class: 'small muted' },
        'The law asks that the person or firm that pumps a tank holds a valid permit from the NYS DEC.',
      ),
      h('label', { for: 'h-name' }, 'Hauler (person or firm)'),
      h('input', { id: 'h-name', type: 'text', maxlength: 200, value: fill.hauler?.name ?? '' }),
      h('label', { for: 'h-permit' }, 'NYS DEC permit number'),
      h('input', { id: 'h-permit', type: 'text', maxlength: 64, value: fill.hauler?.permit ?? '' }),
    ]);
  } else replace(el, []);
}

const value = (id: string) =>
  holder?.querySelector<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>(`#${id}`)?.value.trim() ??
  '';

/** The deficiencies, those found remedied and the hauler typed, or a problem in words. */
export function readWastewater(): WastewaterFill & { problem?: string } {
  const remedied = [...(holder?.querySelectorAll<HTMLInputElement>('#i-remedied input:checked') ?? [])].map(
    (c) => c.value,
  );
  const also = remedied.length ? { remedied } : {};
  if (asks === 'deficiencies') {
    const deficiencies: Deficiency[] = [];
    for (let n = 0; n < rows; n++) {
      const note = value(`d-${n}-note`);
      if (!note) continue;
      deficiencies.push({ kind: value(`d-${n}-kind`) as DeficiencyKind, note });
    }
    return deficiencies.length ? { deficiencies, ...also } : also;
  }
  if (asks === 'hauler') {
    const name = value('h-name');
    const permit = value('h-permit');
    if (!name && !permit) return {};
    if (!name || !permit)
      return {
        problem: name
          ? 'Enter the hauler’s NYS DEC permit number, or clear the hauler’s name.'
          : 'Enter the name of the hauler who holds this NYS DEC permit.',
      };
    return { hauler: { name, permit } };
  }
  return also;
}
