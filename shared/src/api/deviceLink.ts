/**
 * How a device is heard (GET /api/sites/{siteId}/devices/{deviceId}/link): how it speaks and through
 * which profile, the last message as it sent it (the uplink's JSON, the registers read, the values
 * measured) beside the readings it gave, and its errors in words.
 */
import { z } from 'zod';
import { isoTime } from './common.ts';

export const DEVICE_TRANSPORTS = ['json', 'lorawan', 'modbus', 'sdi12'] as const;

export const deviceLinkSchema = z.object({
  transport: z.enum(DEVICE_TRANSPORTS),
  /** The profile that maps what it sends to readings (none for the gateway's own JSON). */
  profile: z
    .object({
      /** Its name in the library; absent for a profile written out in the device's configuration. */
      name: z.string().optional(),
      label: z.string(),
      source: z.string(),
    })
    .optional(),
  /** The last message heard, as the device sent it (at most 4 KB of it), and what came of it. */
  last: z
    .object({
      at: isoTime,
      raw: z.string(),
      outcome: z.enum(['stored', 'duplicate', 'rejected', 'quarantined']),
      /** The readings it gave (`levelIn`, `alarms.pump`, ...). */
      values: z.record(z.string(), z.union([z.number(), z.boolean()])),
      /** Why it was refused, in words. */
      detail: z.string().optional(),
    })
    .nullable(),
  /** Its errors in words, newest first (at most 20): no answer, a damaged frame, a refusal by the device. */
  errors: z.array(z.object({ at: isoTime, text: z.string() })),
  /** Counts since the gateway started, by what happened (`polls`, `answers`, `timeouts`, `crcErrors`, `exceptions`, `uplinks`, ...). */
  counts: z.record(z.string(), z.number()),
});
export type DeviceLink = z.infer<typeof deviceLinkSchema>;

/** GET /api/profiles: the library of ready profiles, for the device forms. */
export const profileSummarySchema = z.object({
  name: z.string(),
  label: z.string(),
  transport: z.enum(['lorawan', 'modbus', 'sdi12']),
  source: z.string(),
  /** The kinds of device it can be. */
  kinds: z.array(z.string()),
  /** The readings it gives (`levelIn`, `alarms.pump`, ...). */
  readings: z.array(z.string()),
  /** Whether a device with it needs its mounting height (`mountHeightIn`). */
  needsMountHeight: z.boolean(),
});
export type ProfileSummary = z.infer<typeof profileSummarySchema>;
