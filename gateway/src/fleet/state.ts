/**
 * What a gateway tells the others about its sites, retained on the broker under `gateway/{gatewayId}/state`:
 * each site with its devices' status and its open and overdue duties. Its schema is the contract's
 * (shared/src/api/fleet.ts): the publisher builds it, a follower checks what it receives against it.
 */
import type { AlertDto } from '../../../shared/src/api/alerts.ts';
import { type FleetSite, fleetDutySchema } from '../../../shared/src/api/fleet.ts';
import type { SiteConfig } from '../config/schema.ts';
import type { DeviceStateRow } from '../store/readings.ts';

export {
  type FleetSite,
  type FleetState,
  fleetDutySchema,
  fleetSiteSchema,
  fleetStateSchema,
} from '../../../shared/src/api/fleet.ts';

export const stateTopic = (gatewayId: string) => `gateway/${gatewayId}/state`;
export const STATE_FILTER = 'gateway/+/state';
export const STATUS_FILTER = 'gateway/+/status';

/** What the state is built from: the configuration, each device's state, the alerts not resolved. */
export interface StateSources {
  /** The live sites (the catalogue's). */
  sites(): readonly SiteConfig[];
  /** The gateway's time zone, for a site without its own. */
  timezone: string;
  deviceState(siteId: string, deviceId: string): DeviceStateRow | undefined;
  openAlerts(): AlertDto[];
  /** The stop-work order in effect at a site, if any. */
  stopWork?(siteId: string): { since: string; reason: string } | undefined;
  /** Work halted at a site by a violation finding not yet corrected and approved, if any. */
  workHalted?(siteId: string): { since: string; practices: readonly string[] } | null;
}

/** This gateway's sites as others see them (without the publication time). */
export function ownSites(src: StateSources): FleetSite[] {
  const bySite = new Map<string, FleetSite['duties']>();
  for (const a of src.openAlerts()) {
    const duty = fleetDutySchema.parse(a);
    const list = bySite.get(a.siteId);
    if (list) list.push(duty);
    else bySite.set(a.siteId, [duty]);
  }
  return src.sites().map((s) => ({
    id: s.id,
    name: s.name ?? s.id,
    kind: s.kind,
    timezone: s.timezone ?? src.timezone,
    devices: s.devices.map((d) => {
      const st = src.deviceState(s.id, d.id);
      return {
        id: d.id,
        kind: d.kind,
        status: st?.status ?? 'unknown',
        lastReadingAt: st?.lastTs ? new Date(st.lastTs).toISOString() : null,
      };
    }),
    duties: bySite.get(s.id) ?? [],
    ...(src.stopWork ? { stopWork: stopWorkOf(src.stopWork(s.id)) } : {}),
    ...(src.workHalted ? { workHalted: haltedOf(src.workHalted(s.id)) } : {}),
  }));
}

/** Work halted as others see it: since when, and the practices found in violation. */
function haltedOf(h: { since: string; practices: readonly string[] } | null): FleetSite['workHalted'] {
  return h ? { since: h.since, practices: [...h.practices] } : null;
}

/** The order as others see it: since when, and why. */
function stopWorkOf(order: { since: string; reason: string } | undefined): FleetSite['stopWork'] {
  return order ? { since: order.since, reason: order.reason } : null;
}
