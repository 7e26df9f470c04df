/**
 * What a gateway tells the others about its sites, retained on the broker under `gateway/{gatewayId}/state`:
 * each site with its devices' status and its open and overdue duties. One zod schema: the publisher
 * builds it, a follower checks what it receives against it, the API serves it.
 */
import { z } from 'zod';
import type { AlertDto } from '../../../shared/src/api/alerts.ts';
import { alertDtoSchema } from '../../../shared/src/api/alerts.ts';
import type { Config } from '../config/schema.ts';
import type { DeviceStateRow } from '../store/readings.ts';

const iso = z.iso.datetime({ offset: true });

/** An open duty as others see it (the rule as a plain string: a follower may run another release). */
export const fleetDutySchema = alertDtoSchema
  .pick({
    id: true,
    siteId: true,
    deviceId: true,
    status: true,
    overdue: true,
    raisedAt: true,
    dueAt: true,
    message: true,
  })
  .extend({ rule: z.string() });

export const fleetSiteSchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.string(),
  timezone: z.string(),
  devices: z.array(
    z.object({
      id: z.string(),
      kind: z.string(),
      status: z.enum(['online', 'offline', 'unknown']),
      lastReadingAt: iso.nullable(),
    }),
  ),
  duties: z.array(fleetDutySchema),
});

export const fleetStateSchema = z.object({
  gatewayId: z.string(),
  /** Where this gateway's own dashboard and API answer, when configured (fleet.url). */
  url: z.string().optional(),
  publishedAt: iso,
  /** It publishes at least this often: a follower counts a state older than three of these as stale. */
  everySeconds: z.number().int().positive(),
  sites: z.array(fleetSiteSchema),
});
export type FleetState = z.infer<typeof fleetStateSchema>;
export type FleetSite = z.infer<typeof fleetSiteSchema>;

export const stateTopic = (gatewayId: string) => `gateway/${gatewayId}/state`;
export const STATE_FILTER = 'gateway/+/state';
export const STATUS_FILTER = 'gateway/+/status';

/** What the state is built from: the configuration, each device's state, the alerts not resolved. */
export interface StateSources {
  config: Config;
  deviceState(siteId: string, deviceId: string): DeviceStateRow | undefined;
  openAlerts(): AlertDto[];
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
  return src.config.sites.map((s) => ({
    id: s.id,
    name: s.name ?? s.id,
    kind: s.kind,
    timezone: s.timezone ?? src.config.timezone,
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
  }));
}
