/**
 * Who gets which notification, per site (no configuration yet):
 *   - raise, overdue, extension and resolve go to every recipient of the site: the officer is told
 *     of every storm and every missed deadline, owners and engineers of every fault and remedy.
 *   - reminder goes only to the recipients responsible for acting on the rule (the rule module's `duty.responsible`).
 *     If none of the site's recipients has a responsible role, it goes to all of them: a reminder is
 *     never lost for want of a matching role.
 * A recipient gets a webhook if it has a `webhook` URL and an e-mail if it has an `email` address.
 * Two recipients with the same address or URL get one delivery.
 * MQTT, when the gateway has an MQTT channel, gets one delivery per event on `alerts/{siteId}/{rule}`.
 */
import { alertTopic } from '../../../shared/src/topics.ts';
import type { SiteConfig } from '../config/schema.ts';
import { responsibleRoles } from '../rules/index.ts';
import type { Channel, DeliveryTarget, EventRow } from './queue.ts';

export interface RouteTarget {
  channel: Exclude<Channel, 'mqtt'>;
  target: string;
}

export function routeRecipients(site: SiteConfig | undefined, kind: string, rule: string): RouteTarget[] {
  if (!site) return [];
  let recipients = site.recipients;
  if (kind === 'reminder') {
    const roles = responsibleRoles(rule);
    const responsible = recipients.filter((r) => roles.includes(r.role));
    if (responsible.length) recipients = responsible;
  }
  const out: RouteTarget[] = [];
  const seen = new Set<string>();
  const add = (channel: RouteTarget['channel'], target: string) => {
    const k = `${channel} ${channel === 'email' ? target.toLowerCase() : target}`;
    if (seen.has(k)) return;
    seen.add(k);
    out.push({ channel, target });
  };
  for (const r of recipients) {
    if (r.webhook) add('webhook', r.webhook);
    if (r.email) add('email', r.email);
  }
  return out;
}

/** The roles a notice of violation is served on ("the landowner", "developer or applicant"). */
const SERVED_ROLES: readonly string[] = ['developer', 'owner'];

/**
 * A notice of violation, and a stop-work order (and its lifting), is served by e-mail on the site's
 * recipients with role developer or owner, and on the landowner's and developer's own addresses as the
 * notice or order names them; not on MQTT or webhooks (they carry alerts).
 */
function routeViolation(site: SiteConfig | undefined, payload: string | undefined): DeliveryTarget[] {
  const out: DeliveryTarget[] = [];
  const seen = new Set<string>();
  const add = (email: string | undefined) => {
    if (!email || seen.has(email.toLowerCase())) return;
    seen.add(email.toLowerCase());
    out.push({ channel: 'email', target: email });
  };
  for (const r of site?.recipients ?? []) if (SERVED_ROLES.includes(r.role)) add(r.email);
  const parties = partiesOf(payload);
  add(parties.landowner);
  add(parties.developer);
  return out;
}

/**
 * An inspection's report goes by e-mail to the site's recipients with role officer (law 001: "delivered
 * to the Stormwater Management Officer"); not on MQTT or webhooks (they carry alerts).
 */
function routeReport(site: SiteConfig | undefined): DeliveryTarget[] {
  const seen = new Set<string>();
  const out: DeliveryTarget[] = [];
  for (const r of site?.recipients ?? []) {
    if (r.role !== 'officer' || !r.email || seen.has(r.email.toLowerCase())) continue;
    seen.add(r.email.toLowerCase());
    out.push({ channel: 'email', target: r.email });
  }
  return out;
}

/** The parties' e-mail addresses in a notice's payload (none when it cannot be read). */
function partiesOf(payload: string | undefined): { landowner?: string; developer?: string } {
  if (!payload) return {};
  let v: { landowner?: { email?: unknown }; developer?: { email?: unknown } };
  try {
    v = JSON.parse(payload) as typeof v;
  } catch {
    // An unreadable payload fails its deliveries at sending (delivery.ts); here it names no party.
    return {};
  }
  const email = (x: unknown) => (typeof x === 'string' ? x : undefined);
  const out: { landowner?: string; developer?: string } = {};
  const l = email(v.landowner?.email);
  const d = email(v.developer?.email);
  if (l) out.landowner = l;
  if (d) out.developer = d;
  return out;
}

/**
 * Every delivery target of one event: its MQTT topic (when `mqtt`), then the site's recipients.
 * A site missing from the live catalogue has no recipients.
 */
export function routeEvent(
  ev: Pick<EventRow, 'site_id' | 'rule' | 'kind'> & Partial<Pick<EventRow, 'payload'>>,
  site: SiteConfig | undefined,
  mqtt: boolean,
): DeliveryTarget[] {
  if (ev.kind === 'violation' || ev.kind === 'stop-work') return routeViolation(site, ev.payload);
  if (ev.kind === 'inspection-report') return routeReport(site);
  const out: DeliveryTarget[] = mqtt ? [{ channel: 'mqtt', target: alertTopic(ev.site_id, ev.rule) }] : [];
  out.push(...routeRecipients(site, ev.kind, ev.rule));
  return out;
}
