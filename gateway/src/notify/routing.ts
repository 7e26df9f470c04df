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

/**
 * Every delivery target of one event: its MQTT topic (when `mqtt`), then the site's recipients.
 * A site missing from the configuration has no recipients.
 */
export function routeEvent(
  ev: Pick<EventRow, 'site_id' | 'rule' | 'kind'>,
  site: SiteConfig | undefined,
  mqtt: boolean,
): DeliveryTarget[] {
  const out: DeliveryTarget[] = mqtt ? [{ channel: 'mqtt', target: alertTopic(ev.site_id, ev.rule) }] : [];
  out.push(...routeRecipients(site, ev.kind, ev.rule));
  return out;
}
