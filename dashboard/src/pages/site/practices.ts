/**
 * A construction site's erosion and sediment control practices on its page: each with its kind in words
 * and whether it is in force or retired (since when, in the site's zone). An administrator adds one
 * (label and kind; its id is made from the label, one the site has never had), renames one, changes its
 * kind, or retires one: it leaves the inspection form's checklist and is no longer counted in "every
 * practice", and past inspections still name it. Each change is saved at once with the site's edit
 * (PATCH /api/sites/{id}), so it is in the site's change history; "Saved" only once the gateway has it.
 * Others see the list.
 */
import {
  PRACTICE_KIND_LABELS,
  PRACTICE_KINDS,
  type PracticeKind,
} from '../../../../shared/src/api/enforcementWords.ts';
import type { Practice } from '../../../../shared/src/api/findings.ts';
import { practiceIdFor } from '../../../../shared/src/api/practiceWords.ts';
import { describeError, patch } from '../../api.js';
import { isAdmin, session } from '../../session.js';
import { loadAll, type Site } from '../../state.js';
import { byId, cell, h, replace } from '../../ui/dom.js';
import { formatTime } from '../../ui/format.js';

/** What the last change said, shown once the part is drawn again. */
let lastWords = '';

const kindWords = (k: string) => PRACTICE_KIND_LABELS[k as PracticeKind] ?? k;

function kindSelect(id: string, value: string): HTMLSelectElement {
  return h(
    'select',
    { id, required: true },
    PRACTICE_KINDS.map((k) => h('option', { value: k, selected: k === value }, kindWords(k))),
  ) as HTMLSelectElement;
}

/** Draws the part for a construction site (nothing for another kind); again only when something changed. */
export function renderPractices(site: Site, reload: () => Promise<void>) {
  const box = byId('site-practices');
  if (site.kind !== 'construction') {
    box.dataset.for = '';
    replace(box);
    return;
  }
  const key = [
    site.id,
    session.me?.name ?? '',
    session.me?.role ?? '',
    JSON.stringify(site.practices ?? []),
  ].join('|');
  if (box.dataset.for === key) return;
  box.dataset.for = key;
  draw(box, site, reload);
}

function draw(box: HTMLElement, site: Site, reload: () => Promise<void>) {
  const list: Practice[] = site.practices ?? [];
  const admin = isAdmin(session.me);
  const words = lastWords;
  lastWords = '';
  const result = h(
    'p',
    { id: 'practices-result', class: words ? 'msg msg-ok' : 'msg', role: 'status', 'aria-live': 'polite' },
    words,
  );
  const failed = (e: unknown) => {
    result.textContent = describeError(e);
    result.className = 'msg msg-bad';
  };
  /** Saves the whole list; `said` is what the person is told once it is stored. */
  const save = async (next: Practice[], said: string, button: HTMLButtonElement) => {
    button.disabled = true;
    result.textContent = 'Saving…';
    result.className = 'msg';
    try {
      await patch('PATCH /api/sites/:id', { params: { id: site.id }, body: { practices: next } });
    } catch (e) {
      button.disabled = false;
      failed(e);
      return;
    }
    lastWords = said;
    box.dataset.for = '';
    await reload();
    void loadAll().catch((e: unknown) => console.warn('refreshing the sites failed', e));
  };
  const rows = list.map((p, i) => row(site, p, i, admin, list, save, failed));
  const inForce = list.filter((p) => p.retired === undefined).length;
  replace(
    box,
    h(
      'section',
      { class: 'card practices', 'aria-labelledby': 'practices-h' },
      h('h3', { id: 'practices-h' }, 'Erosion and sediment control practices'),
      h(
        'p',
        { class: 'small muted' },
        list.length
          ? `${inForce} in force. An inspection records a finding at each practice in force; a retired practice is no longer inspected nor counted in "every practice", and past inspections still name it.`
          : admin
            ? 'None listed yet: an inspection of this site has no checklist until practices are added here.'
            : 'None listed yet: an administrator adds them.',
      ),
      result,
      list.length
        ? h(
            'div',
            { class: 'table-wrap' },
            h(
              'table',
              { class: 'stack', id: 'practices-table' },
              h(
                'thead',
                null,
                h(
                  'tr',
                  null,
                  ['Practice', 'Kind', 'Status', admin ? 'Change' : ''].map((t) =>
                    t ? h('th', { scope: 'col' }, t) : null,
                  ),
                ),
              ),
              h('tbody', null, rows),
            ),
          )
        : null,
      admin ? addForm(list, save, failed) : null,
    ),
  );
  if (words) result.scrollIntoView({ block: 'nearest' });
}

type Save = (next: Practice[], said: string, button: HTMLButtonElement) => Promise<void>;

function row(
  site: Site,
  p: Practice,
  i: number,
  admin: boolean,
  list: readonly Practice[],
  save: Save,
  failed: (e: unknown) => void,
): HTMLElement {
  const status = p.retired ? `Retired from ${formatTime(p.retired, site.timezone)}` : 'In force';
  const tr = h(
    'tr',
    { 'data-practice': p.id, class: p.retired ? 'practice-retired' : '' },
    cell('Practice', p.label),
    cell('Kind', kindWords(p.kind)),
    cell('Status', status),
  );
  if (!admin) return tr;
  const actions = h('div', { class: 'row practice-actions' });
  const put = (next: Practice) => list.map((x, j) => (j === i ? next : x));
  const plain = () => {
    replace(
      actions,
      h(
        'button',
        { type: 'button', class: 'secondary', 'data-act': 'edit', onclick: editing },
        'Rename or change kind',
      ),
      p.retired
        ? null
        : h(
            'button',
            { type: 'button', class: 'secondary', 'data-act': 'retire', onclick: confirming },
            'Retire',
          ),
    );
  };
  function editing() {
    const label = h('input', {
      id: `pr-${i}-label`,
      value: p.label,
      maxlength: 200,
      required: true,
      'aria-label': 'Practice',
    }) as HTMLInputElement;
    const kind = kindSelect(`pr-${i}-kind`, p.kind);
    kind.setAttribute('aria-label', 'Kind');
    const ok = h('button', { type: 'button', 'data-act': 'save' }, 'Save') as HTMLButtonElement;
    ok.onclick = () => {
      const text = label.value.trim();
      if (!text) return failed(new Error('Write what the practice is called.'));
      const changed = [
        text !== p.label ? `renamed "${text}"` : '',
        kind.value !== p.kind ? `now ${kindWords(kind.value).toLowerCase()}` : '',
      ].filter(Boolean);
      if (changed.length === 0) return plain();
      void save(
        put({ ...p, label: text, kind: kind.value as PracticeKind }),
        `Saved: "${p.label}" ${changed.join(', ')}.`,
        ok,
      );
    };
    replace(
      actions,
      label,
      kind,
      ok,
      h('button', { type: 'button', class: 'secondary', onclick: plain }, 'Cancel'),
    );
    label.focus();
  }
  function confirming() {
    const yes = h(
      'button',
      { type: 'button', class: 'danger', 'data-act': 'retire-yes' },
      'Retire it',
    ) as HTMLButtonElement;
    yes.onclick = () =>
      void save(
        put({ ...p, retired: new Date().toISOString() }),
        `Saved: "${p.label}" is retired. It is no longer on the inspection checklist.`,
        yes,
      );
    replace(
      actions,
      h('span', { class: 'small' }, 'Retire it from now on? It leaves the inspection checklist.'),
      yes,
      h('button', { type: 'button', class: 'secondary', onclick: plain }, 'Keep it'),
    );
  }
  plain();
  tr.appendChild(cell('Change', actions));
  return tr;
}

function addForm(list: readonly Practice[], save: Save, failed: (e: unknown) => void): HTMLElement {
  const label = h('input', {
    id: 'pr-new-label',
    maxlength: 200,
    required: true,
    placeholder: 'Silt fence, north boundary',
  }) as HTMLInputElement;
  const kind = kindSelect('pr-new-kind', 'silt-fence');
  const button = h('button', { type: 'submit' }, 'Add the practice') as HTMLButtonElement;
  const submit = (e: Event) => {
    e.preventDefault();
    const text = label.value.trim();
    if (!text)
      return failed(new Error('Write what the practice is called, e.g. "Silt fence, north boundary".'));
    const id = practiceIdFor(
      text,
      list.map((p) => p.id),
    );
    void save(
      [...list, { id, label: text, kind: kind.value as PracticeKind }],
      `Saved: "${text}" added.`,
      button,
    );
  };
  return h(
    'form',
    { id: 'practice-add', class: 'form practice-add', novalidate: true, onsubmit: submit },
    h('h4', null, 'Add a practice'),
    h('label', { for: 'pr-new-label' }, 'Practice'),
    label,
    h('label', { for: 'pr-new-kind' }, 'Kind'),
    kind,
    button,
  );
}
