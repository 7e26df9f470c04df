/** The officer's page: every site, its devices (gaps shown as gaps) and its open and overdue duties. */

import { homeZone, isOverdue, ruleOf, state } from '../../state.js';
import { badge, byId, h, replace, SITE_KINDS } from '../../ui/dom.js';
import { dutyItem, sortDuties } from '../../ui/duties.js';
import { formatTime, isSilent, relativePast } from '../../ui/format.js';
import { stopWorkBanner, workHaltedBanner } from '../../ui/stop-work-banner.js';

export type Alert = import('../../state.js').Alert;

/** {Map<string, boolean>} whether each site's device list is unfolded, as the user left it */
const devicesOpen: Map<string, boolean> = new Map();
export type Device = import('../../state.js').Device;

function deviceItem(d: Device, tz: string, now: number, silentAlert: boolean) {
  const last = d.lastReadingAt ?? d.lastReceivedAt;
  const gap = silentAlert || isSilent(d, now);
  const late =
    d.lastReadingAt !== null &&
    d.lastReceivedAt !== null &&
    Date.parse(d.lastReceivedAt) - Date.parse(d.lastReadingAt) > 60 * 60_000;
  const statusKind = d.status === 'online' ? 'ok' : d.status === 'offline' ? 'bad' : 'muted';
  return h(
    'li',
    { class: `device${gap ? ' device-gap' : ''}`, 'data-device': d.id },
    h('span', { class: 'device-id' }, d.id),
    h('span', { class: 'device-kind' }, d.kind),
    badge(d.status, statusKind),
    gap
      ? badge(
          last ? `silent ${relativePast(last, now).replace(' ago', '')}: no evidence` : 'no data yet',
          'gap',
        )
      : null,
    h(
      'span',
      { class: 'device-last' },
      last
        ? h(
            'time',
            { datetime: last, title: formatTime(last, tz) },
            `last reading ${relativePast(last, now)}`,
          )
        : 'never reported',
      late ? ` (arrived late, ${relativePast(d.lastReceivedAt as string, now)})` : '',
    ),
  );
}

/**
 * Every site's card; `openAlert` undefined (the public view): the duties open nothing and the sites'
 * names lead nowhere, their pages being the records of a signed-in person.
 */
export function renderOverview(openAlert?: (id: string) => void) {
  const root = byId('overview-body');
  if (!state.loaded) return;
  const now = Date.now();
  const all = [...state.active.values()];
  const totalOverdue = all.filter((a) => isOverdue(a, now)).length;
  const perSite = state.sites.map((site) => {
    const alerts = sortDuties(
      all.filter((a) => a.siteId === site.id),
      now,
    );
    return { site, alerts, overdue: alerts.filter((a) => isOverdue(a, now)).length };
  });
  perSite.sort((a, b) => b.overdue - a.overdue || b.alerts.length - a.alerts.length);
  const focused = root.contains(document.activeElement)
    ? document.activeElement?.getAttribute('data-key')
    : undefined;
  replace(
    byId('overview-summary'),
    totalOverdue
      ? h(
          'strong',
          { class: 'text-bad' },
          `${totalOverdue} overdue ${totalOverdue === 1 ? 'duty' : 'duties'}`,
        )
      : h('strong', { class: 'text-ok' }, 'Nothing overdue'),
    ` · ${all.length} open across ${state.sites.length} sites · updated ${formatTime(now, homeZone())}`,
  );
  replace(
    root,
    perSite.map(({ site, alerts, overdue }) => {
      // A rule whose alerts the report lists as gaps: the device is silent, its evidence has a hole.
      const silentDevices = new Set(
        alerts.filter((a) => ruleOf(a.rule)?.section === 'gaps').map((a) => a.deviceId),
      );
      const headingId = `site-h-${site.id}`;
      return h(
        'article',
        {
          class: `card site-card${overdue ? ' card-overdue' : ''}`,
          'data-site': site.id,
          'aria-labelledby': headingId,
        },
        h(
          'header',
          { class: 'card-head' },
          h(
            'h3',
            { id: headingId },
            openAlert
              ? h(
                  'a',
                  { href: `#/sites/${encodeURIComponent(site.id)}`, 'data-key': `site-${site.id}` },
                  site.name,
                )
              : site.name,
          ),
          h(
            'div',
            { class: 'counts' },
            overdue ? badge(`${overdue} overdue`, 'bad') : null,
            badge(`${alerts.length} open`, alerts.length ? 'warn' : 'ok'),
          ),
        ),
        h(
          'p',
          { class: 'muted small' },
          `${SITE_KINDS[site.kind] ?? site.kind} · ${site.id} · ${site.timezone}`,
        ),
        stopWorkBanner(site.stopWork, site.timezone),
        workHaltedBanner(site.workHalted, site.timezone),
        alerts.length
          ? h(
              'ul',
              { class: 'duties', 'aria-label': `Open duties at ${site.name}` },
              alerts.map((a) => dutyItem(a, site.timezone, now, openAlert)),
            )
          : h('p', { class: 'muted' }, 'No open duties.'),
        h(
          'details',
          {
            class: 'devices',
            open: devicesOpen.get(site.id) ?? site.devices.length <= 4,
            ontoggle: (e) => devicesOpen.set(site.id, (e.target as HTMLDetailsElement).open),
          },
          h('summary', null, `Devices (${site.devices.length})`),
          h(
            'ul',
            { class: 'device-list' },
            site.devices.map((d) => deviceItem(d, site.timezone, now, silentDevices.has(d.id))),
          ),
        ),
      );
    }),
  );
  if (focused) (root.querySelector(`[data-key="${focused}"]`) as HTMLElement | null)?.focus();
}
