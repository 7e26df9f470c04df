/**
 * The enforcement part of a construction site's page: the stop-work order in effect (and the forms to
 * order or lift one), the landowner, developer and address, the notices of violation with their steps,
 * and the form to issue one. Drawn once per site, person and order, so a live refresh of the page keeps
 * what someone is typing; drawn again after each step, its answer in words at the top.
 */
import { describeError } from '../../api.js';
import { session } from '../../session.js';
import type { Site } from '../../state.js';
import { loadAll } from '../../state.js';
import { byId, h, replace } from '../../ui/dom.js';
import { editSite } from '../../ui/site-form.js';
import { partiesOf } from './parties.js';
import { stopWorkPanel } from './stop-work.js';
import { violationForm } from './violation-form.js';
import { loadViolations, violationList } from './violations.js';

let lastWords = '';

const keyOf = (site: Site) =>
  [
    site.id,
    session.me?.name ?? '',
    session.me?.role ?? '',
    site.stopWork?.id ?? '',
    site.stopWork?.liftedAt ?? '',
    JSON.stringify(site.workHalted ?? null),
    JSON.stringify([site.landowner, site.developer, site.address]),
  ].join('|');

/**
 * Draws the part for the site, of any kind (each under its own law); `reload` reads the site again and
 * draws the page.
 */
export function renderEnforcement(site: Site, reload: () => Promise<void>) {
  const box = byId('site-enforcement');
  const key = keyOf(site);
  if (box.dataset.for === key) return;
  box.dataset.for = key;
  void draw(box, site, key, reload);
}

async function draw(box: HTMLElement, site: Site, key: string, reload: () => Promise<void>) {
  const notices = await loadViolations(site.id).catch((e: unknown) => describeError(e));
  if (box.dataset.for !== key) return;
  const done = (words: string) => {
    lastWords = words;
    box.dataset.for = '';
    void reload();
    void loadAll().catch((e: unknown) => console.warn('refreshing the sites failed', e));
  };
  const now = Date.now();
  const words = lastWords;
  lastWords = '';
  const result = h(
    'p',
    { id: 'enforcement-result', class: words ? 'msg msg-ok' : 'msg', role: 'status', 'aria-live': 'polite' },
    words,
  );
  replace(
    byId('site-stop-work'),
    result,
    stopWorkPanel(site, typeof notices === 'string' ? [] : notices, done),
  );
  replace(
    box,
    partiesOf(site, () => void editSite(site, reload)),
    h('h3', { id: 'violations-h' }, 'Notices of violation'),
    typeof notices === 'string'
      ? h('p', { class: 'msg msg-bad' }, notices)
      : violationList(site, notices, now, done),
    violationForm(site, now, done),
  );
  if (words) result.scrollIntoView({ block: 'nearest' });
}
