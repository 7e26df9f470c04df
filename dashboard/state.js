/**
 * What the page knows: the sites with their devices, every alert that is not resolved, and the rules
 * (their labels and what may be done with their alerts, from GET /api/rules).
 */
import { get } from './api.js';
import { h, replace } from './dom.js';

/**
 * The shapes the API answers with: the contract's types (shared/src/api.ts).
 * @typedef {import('../shared/src/api.ts').DeviceView} Device
 * @typedef {import('../shared/src/api.ts').SiteView} Site
 * @typedef {import('../shared/src/api.ts').AlertHistoryEntry} HistoryEntry
 * @typedef {import('../shared/src/api.ts').AlertDto} Alert
 * @typedef {import('../shared/src/rules.ts').RuleInfo} Rule
 */

export const state = {
  /** @type {Site[]} */
  sites: [],
  /** @type {Map<string, Alert>} open and acknowledged alerts */
  active: new Map(),
  /** @type {Rule[]} every rule id an alert may carry, read once */
  rules: [],
  gatewayId: '',
  loaded: false,
};

/** @type {Set<() => void>} */
const listeners = new Set();

/** @param {() => void} fn */
export function onChange(fn) {
  listeners.add(fn);
}

export function changed() {
  for (const fn of listeners) fn();
}

/** @param {string} id */
export const siteById = (id) => state.sites.find((s) => s.id === id);

/** @param {string} siteId */
export const siteZone = (siteId) => siteById(siteId)?.timezone ?? 'UTC';

/**
 * Overdue now (the flag from the API is as of the moment it was fetched).
 * @param {Alert} a
 * @param {number} now
 */
export const isOverdue = (a, now) =>
  a.status !== 'resolved' && (a.overdue || (a.dueAt !== null && Date.parse(a.dueAt) < now));

/** @param {string} id */
export const ruleOf = (id) => state.rules.find((r) => r.id === id);

/**
 * A rule id's label ("Storm inspection"), as the gateway names it.
 * @param {string} id
 */
export const ruleLabel = (id) => ruleOf(id)?.label ?? id;

export async function loadAll() {
  const [sites, open, acked, rules] = await Promise.all([
    get('/api/sites'),
    get('/api/alerts', { status: 'open', limit: 5000 }),
    get('/api/alerts', { status: 'acknowledged', limit: 5000 }),
    // The rules change only with the gateway's release: read once.
    state.rules.length ? state.rules : get('/api/rules'),
  ]);
  state.sites = sites;
  state.rules = rules;
  state.active = new Map([...open, ...acked].map((a) => [a.id, a]));
  state.loaded = true;
  changed();
}

/** @param {Alert} a */
export function upsertAlert(a) {
  if (a.status === 'resolved') state.active.delete(a.id);
  else state.active.set(a.id, a);
}

/**
 * @param {string} siteId
 * @param {string} deviceId
 */
export function deviceOf(siteId, deviceId) {
  return siteById(siteId)?.devices.find((d) => d.id === deviceId);
}

/**
 * Fills a site filter with "All sites" and the sites the person may see, keeping the choice made.
 * @param {HTMLSelectElement} sel
 */
export function fillSiteFilter(sel) {
  const keep = sel.value;
  replace(
    sel,
    h('option', { value: '' }, 'All sites'),
    state.sites.map((s) => h('option', { value: s.id }, s.name)),
  );
  sel.value = keep;
}
