/**
 * What the page knows: the sites with their devices, every alert that is not resolved, and the rules
 * (their labels and what may be done with their alerts, from GET /api/rules).
 */
import { get, getAll } from './api.js';
import { fieldCopy, keepFieldCopy } from './field-copy.js';

/**
 * The shapes the API answers with: the contract's types (shared/src/api.ts).
 */
export type Device = import('../../shared/src/api.ts').DeviceView;

export type Site = import('../../shared/src/api.ts').SiteView;

export type HistoryEntry = import('../../shared/src/api.ts').AlertHistoryEntry;

export type Alert = import('../../shared/src/api.ts').AlertDto;

export type Rule = import('../../shared/src/rules.ts').RuleInfo;

export const state = {
  sites: [] as Site[],
  /** open and acknowledged alerts */
  active: new Map() as Map<string, Alert>,
  /** every rule id an alert may carry, read once */
  rules: [] as Rule[],
  gatewayId: '',
  /** The gateway's configured time zone (GET /api/health); empty until read. */
  gatewayZone: '',
  loaded: false,
};

const listeners: Set<() => void> = new Set();

export function onChange(fn: () => void) {
  listeners.add(fn);
}

export function changed() {
  for (const fn of listeners) fn();
}

export const siteById = (id: string) => state.sites.find((s) => s.id === id);

/** A site as people know it: its name, or its id when the page knows no such site. */
export const siteName = (id: string) => siteById(id)?.name ?? id;

export const siteZone = (siteId: string) => siteById(siteId)?.timezone ?? homeZone();

/**
 * The zone of what belongs to no site (the overview's "updated", tokens, gateway-wide changes): the
 * gateway's configured zone; before the gateway said it, the zone most of the sites keep, else the
 * browser's. Every time is shown with its zone's name ("EST"), so it is labelled.
 */
export function homeZone(sites: readonly Pick<Site, 'timezone'>[] = state.sites): string {
  if (state.gatewayZone) return state.gatewayZone;
  const count = new Map<string, number>();
  for (const s of sites) count.set(s.timezone, (count.get(s.timezone) ?? 0) + 1);
  let best: string | undefined;
  for (const [tz, n] of count) if (best === undefined || n > (count.get(best) ?? 0)) best = tz;
  return best ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/**
 * Overdue now (the flag from the API is as of the moment it was fetched).
 */
export const isOverdue = (a: Alert, now: number) =>
  a.status !== 'resolved' && (a.overdue || (a.dueAt !== null && Date.parse(a.dueAt) < now));

/** An alarm its device still reports (the alert routes' answers say; the live feed's do not). */
export const isActiveAlarm = (a: Alert) => a.status !== 'resolved' && a.alarm?.active === true;

/** Where an alert stands in the order of urgency: overdue, alarm, due, no deadline, resolved. */
function urgencyRank(a: Alert, now: number) {
  if (a.status === 'resolved') return 4;
  if (isOverdue(a, now)) return 0;
  if (isActiveAlarm(a)) return 1;
  return a.dueAt ? 2 : 3;
}

/**
 * Most urgent first: overdue duties (the longest overdue first), then alarms a device still reports, then
 * the soonest due, then those without a deadline (newest first); resolved ones last, newest first.
 */
export function byUrgency(now: number) {
  const due = (a: Alert) => (a.dueAt ? Date.parse(a.dueAt) : Number.POSITIVE_INFINITY);
  return (a: Alert, b: Alert) => {
    const ra = urgencyRank(a, now);
    const rb = urgencyRank(b, now);
    if (ra !== rb) return ra - rb;
    if (ra <= 2) return due(a) - due(b) || Date.parse(a.raisedAt) - Date.parse(b.raisedAt);
    return Date.parse(b.raisedAt) - Date.parse(a.raisedAt);
  };
}

/**
 * An alert as the live feed sends it, with what only the alert routes add (the evidence in words, the
 * alarm's state) kept from the copy the page had, until it reads the alert again.
 */
export function withView(a: Alert, had: Alert | undefined): Alert {
  if (!had || a.evidenceText) return a;
  return {
    ...a,
    ...(had.evidenceText ? { evidenceText: had.evidenceText } : {}),
    ...(had.alarm ? { alarm: { ...had.alarm, active: a.status !== 'resolved' && had.alarm.active } } : {}),
  };
}

export const ruleOf = (id: string) => state.rules.find((r) => r.id === id);

/**
 * A rule id's label ("Storm inspection"), as the gateway names it (before the rules are read, as the
 * copy kept on this phone names it).
 */
export const ruleLabel = (id: string) =>
  ruleOf(id)?.label ?? fieldCopy()?.rules.find((r) => r.id === id)?.label ?? id;

export async function loadAll() {
  const [sites, open, acked, rules] = await Promise.all([
    get('GET /api/sites'),
    // Every open duty, a page at a time.
    getAll('GET /api/alerts', { query: { status: 'open', limit: 500 } }),
    getAll('GET /api/alerts', { query: { status: 'acknowledged', limit: 500 } }),
    // The rules change only with the gateway's release: read once.
    state.rules.length ? state.rules : get('GET /api/rules'),
  ]);
  state.sites = sites;
  state.rules = rules;
  keepFieldCopy(sites, rules);
  state.active = new Map([...open, ...acked].map((a) => [a.id, a]));
  state.loaded = true;
  changed();
}

export function upsertAlert(a: Alert) {
  if (a.status === 'resolved') state.active.delete(a.id);
  else state.active.set(a.id, withView(a, state.active.get(a.id)));
}

export function deviceOf(siteId: string, deviceId: string) {
  return siteById(siteId)?.devices.find((d) => d.id === deviceId);
}

/** A device as people know it: "North rain gauge (rg-1)", or its id when it has no name (or is not registered). */
export function deviceLabel(siteId: string, deviceId: string) {
  const d = deviceOf(siteId, deviceId);
  return d?.name ? `${d.name} (${deviceId})` : deviceId;
}
