import { state } from '../state.js';
import { h, replace } from './dom.js';

/**
 * Fills a site filter with "All sites" and the sites the person may see, keeping the choice made.
 */
export function fillSiteFilter(sel: HTMLSelectElement) {
  const keep = sel.value;
  replace(
    sel,
    h('option', { value: '' }, 'All sites'),
    state.sites.map((s) => h('option', { value: s.id }, s.name)),
  );
  sel.value = keep;
}
