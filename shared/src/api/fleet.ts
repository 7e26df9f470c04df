/**
 * What a gateway tells the others about its sites, retained on the broker under `gateway/{gatewayId}/state`,
 * and the followed gateways as GET /api/fleet shows them. One zod schema: the publisher builds it, a
 * follower checks what it receives against it, the API serves it.
 */
import { z } from 'zod';
import { alertDtoSchema } from './alerts.ts';

const iso = z.iso.datetime({ offset: true });

/** An open duty as others see it. */
export const fleetDutySchema = alertDtoSchema.pick({
  id: true,
  rule: true,
  siteId: true,
  deviceId: true,
  status: true,
  overdue: true,
  raisedAt: true,
  dueAt: true,
  message: true,
});

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
  /** The stop-work order in effect at the site (absent from a gateway that does not tell). */
  stopWork: z.object({ since: iso, reason: z.string() }).nullable().optional(),
  /** Work halted by a violation finding not yet corrected and approved (a gateway before it: none). */
  workHalted: z
    .object({ since: iso, practices: z.array(z.string()) })
    .nullable()
    .optional(),
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

/** A followed gateway: its last state, what its retained status says, and whether it is stale. */
export const followedGatewaySchema = fleetStateSchema.omit({ publishedAt: true }).extend({
  publishedAt: iso.nullable(),
  /** What its retained status says; unknown before any was seen. */
  status: z.enum(['online', 'offline', 'unknown']),
  stale: z.boolean(),
});
export type FollowedGateway = z.infer<typeof followedGatewaySchema>;

/** GET /api/fleet. */
export const fleetViewSchema = z.object({
  gatewayId: z.string(),
  following: z.array(z.string()),
  gateways: z.array(followedGatewaySchema),
});
export type FleetView = z.infer<typeof fleetViewSchema>;
