/**
 * Other gateways' sites (GET /api/fleet), read-only: on the overview as cards marked with the owning
 * gateway (linked when it publishes its address) and stale while it is offline, on the alerts page as a
 * list of their open duties.
 */
import { get } from '../../api.js';
import { isScoped, session } from '../../session.js';
import { isOverdue, ruleLabel } from '../../state.js';
import { badge, byId, h, replace, SITE_KINDS } from '../../ui/dom.js';
import { formatTime, relativeDue } from '../../ui/format.js';
import { stopWorkBanner, workHaltedBanner } from '../../ui/stop-work-banner.js';

export type Duty = import('../../../../shared/src/api.ts').FleetSite['duties'][number];

export type FleetSite = import('../../../../shared/src/api.ts').FleetSite;

export type FollowedGateway = import('../../../../shared/src/api.ts').FollowedGateway;

let gateways: FollowedGateway[] = [];

export async function loadFleet() {
  // Other gateways' sites are the town's view: an owner or contractor is shown their own sites only.
  if (isScoped(session.me)) {
    gateways = [];
    return;
  }
  const view = await get('GET /api/fleet');
  gateways = view.gateways;
}

function owner(g: FollowedGateway) {
  return h(
    'span',
    { class: 'fleet-owner' },
    'gateway ',
    g.url ? h('a', { href: g.url, rel: 'noopener' }, g.gatewayId) : h('strong', null, g.gatewayId),
    ' ',
    g.stale
      ? badge(g.status === 'offline' ? 'stale: gateway offline' : 'stale', 'bad')
      : badge('read-only', 'info'),
  );
}

function duty(d: Duty, tz: string, now: number) {
  const overdue = isOverdue({ ...d, history: [], evidence: {} }, now);
  return h(
    'li',
    { class: `duty${overdue ? ' duty-overdue' : ''}`, 'data-alert': d.id, 'data-rule': d.rule },
    h('span', { class: 'duty-rule' }, ruleLabel(d.rule)),
    d.deviceId ? h('span', { class: 'muted' }, ` · ${d.deviceId}`) : null,
    ' ',
    overdue ? badge('OVERDUE', 'bad') : null,
    badge(d.status, d.status === 'acknowledged' ? 'info' : 'warn'),
    d.dueAt
      ? h('div', { class: 'duty-due' }, 'Due ', formatTime(d.dueAt, tz), ` (${relativeDue(d.dueAt, now)})`)
      : null,
  );
}

export function renderFleetOverview() {
  const now = Date.now();
  replace(
    byId('overview-fleet'),
    gateways.flatMap((g) =>
      g.sites.map((site) =>
        h(
          'article',
          {
            class: `card site-card fleet-site${g.stale ? ' fleet-stale' : ''}`,
            'data-site': site.id,
            'data-gateway': g.gatewayId,
          },
          h(
            'header',
            { class: 'card-head' },
            h('h3', null, site.name),
            h('div', { class: 'counts' }, owner(g)),
          ),
          h(
            'p',
            { class: 'muted small' },
            `${SITE_KINDS[site.kind] ?? site.kind} · ${site.id} · ${site.timezone}`,
          ),
          stopWorkBanner(site.stopWork, site.timezone),
          workHaltedBanner(site.workHalted, site.timezone),
          site.duties.length
            ? h(
                'ul',
                { class: 'duties', 'aria-label': `Open duties at ${site.name}` },
                site.duties.map((d) => duty(d, site.timezone, now)),
              )
            : h('p', { class: 'muted' }, 'No open duties.'),
          h(
            'p',
            { class: 'muted small' },
            `Devices: ${site.devices.map((d) => `${d.id} ${d.status}`).join(', ') || 'none'}`,
          ),
        ),
      ),
    ),
  );
}

export function renderFleetAlerts() {
  const now = Date.now();
  const items = gateways.flatMap((g) =>
    g.sites.flatMap((site) =>
      site.duties.map((d) =>
        h('li', { 'data-gateway': g.gatewayId }, `${site.name}: `, duty(d, site.timezone, now), owner(g)),
      ),
    ),
  );
  replace(
    byId('alerts-fleet'),
    gateways.length
      ? [
          h('h3', null, 'Open duties at followed gateways'),
          items.length ? h('ul', { class: 'duties' }, items) : h('p', { class: 'muted' }, 'None.'),
        ]
      : [],
  );
}
