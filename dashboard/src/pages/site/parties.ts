/**
 * A construction site's landowner, developer and address: to whom a notice of violation is directed and
 * where it is served (town law 001, Enforcement A(1) and A(2)). An admin edits them with the site's edit
 * form.
 */
import type { Party } from '../../../../shared/src/api/violations.ts';
import { isAdmin, session } from '../../session.js';
import type { Site } from '../../state.js';
import { h } from '../../ui/dom.js';

function party(label: string, p: Party | undefined, key: string) {
  return h(
    'div',
    { class: 'party', 'data-party': key },
    h('dt', null, label),
    h(
      'dd',
      null,
      p
        ? [
            h('strong', null, p.name),
            h('br'),
            p.address,
            p.email ? [h('br'), h('span', { class: 'small muted' }, p.email)] : null,
          ]
        : h('span', { class: 'muted' }, 'None on record'),
    ),
  );
}

/** The three, and for an admin a button that opens the site's edit form. */
export function partiesOf(site: Site, edit: () => void): HTMLElement {
  const none = !site.landowner && !site.developer;
  return h(
    'section',
    { class: 'card parties', 'aria-labelledby': 'parties-h' },
    h(
      'div',
      { class: 'row between' },
      h('h3', { id: 'parties-h' }, 'Landowner, developer and address'),
      isAdmin(session.me)
        ? h('button', { type: 'button', class: 'secondary', id: 'parties-edit', onclick: edit }, 'Edit')
        : null,
    ),
    h(
      'dl',
      { class: 'party-list' },
      party('Landowner', site.landowner, 'landowner'),
      party('Developer', site.developer, 'developer'),
      h(
        'div',
        { class: 'party', 'data-party': 'address' },
        h('dt', null, 'Address of the land'),
        h('dd', null, site.address ?? h('span', { class: 'muted' }, 'None on record')),
      ),
    ),
    none
      ? h(
          'p',
          { class: 'small msg-warn msg' },
          'A notice of violation needs the name and address of the landowner or the developer: add them here.',
        )
      : null,
  );
}
